import { revokeApiToken } from "@/lib/auth/api-tokens";
import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await revokeApiToken({ userId: user.id, tokenId: params.id });
  return new Response(null, { status: 204 });
});
