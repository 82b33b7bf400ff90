import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { handleChatMessage, ZChatRequest } from "@/lib/sessions/chat";
import { uiStreamResponse } from "@/lib/sessions/ui-stream";

// Streams for as long as the run takes; the run itself survives a disconnect.
export const maxDuration = 800;

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChatRequest);
  return uiStreamResponse(await handleChatMessage({ userId: user.id, sessionId: input.sessionId, text: input.text, signal: request.signal }));
});
