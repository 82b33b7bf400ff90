import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { followSession } from "@/lib/sessions/chat";
import { uiStreamResponse } from "@/lib/sessions/ui-stream";

// useChat's reconnect endpoint: the live run of this session, or 204 when nothing runs.
export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const chunks = await followSession({ userId: user.id, sessionId: params.id, signal: request.signal });
  return chunks ? uiStreamResponse(chunks) : new Response(null, { status: 204 });
});
