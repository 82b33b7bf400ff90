import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { stopRun } from "@/lib/sessions/run-session";
import { getSessionOrThrow } from "@/lib/sessions/sessions";

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const session = await getSessionOrThrow({ userId: user.id, sessionId: params.id });
  return Response.json({ stopped: stopRun(session.id) });
});
