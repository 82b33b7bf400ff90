import { requireUser } from "@/lib/auth/authenticate";
import { listBindings } from "@/lib/channels/bindings";
import { route } from "@/lib/http/route";

/** My chat accounts bound to xclaw (QQ, Feishu). */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ bindings: await listBindings({ userId: user.id }) });
});
