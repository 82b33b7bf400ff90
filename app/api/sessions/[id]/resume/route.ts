import { requireUser } from "@/lib/auth/authenticate";
import { messageResultResponse } from "@/lib/channels/web/web-channel";
import { route } from "@/lib/http/route";
import { resumeSession } from "@/lib/runs/resume-session";

export const maxDuration = 800;

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return messageResultResponse(await resumeSession({ userId: user.id, sessionId: params.id, instructions: user.instructions }), request.signal);
});
