import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { resumeSession } from "@/lib/sessions/chat";
import { uiStreamResponse } from "@/lib/sessions/ui-stream";

export const maxDuration = 800;

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return uiStreamResponse(await resumeSession({ userId: user.id, sessionId: params.id, signal: request.signal }));
});
