import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { stopSessionRun } from "@/lib/runs/stop-run";

// Stops the session's run in whichever app process runs it.
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json({ stopped: await stopSessionRun({ userId: user.id, sessionId: params.id }) });
});
