import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { messageResultResponse } from "@/lib/channels/web/web-channel";
import { readJson, route } from "@/lib/http/route";
import { handleMessage, ZMessageText } from "@/lib/runs/handle-message";

// Streams for as long as the run takes; the run itself survives a disconnect.
export const maxDuration = 800;

const ZChatRequest = z.strictObject({
  sessionId: z.string({ error: "sessionId is required." }),
  text: ZMessageText,
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChatRequest);
  return messageResultResponse(await handleMessage({ userId: user.id, sessionId: input.sessionId, text: input.text, trigger: "web" }), request.signal);
});
