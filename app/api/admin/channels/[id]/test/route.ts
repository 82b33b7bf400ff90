import { requireAdmin } from "@/lib/auth/authenticate";
import { testChannelAccount } from "@/lib/channels/test-account";
import { route } from "@/lib/http/route";

/** Admin "test" → `{ok, error}`: whether the platform's token endpoint takes the stored credentials. */
export const POST = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  return Response.json(await testChannelAccount(params.id));
});
