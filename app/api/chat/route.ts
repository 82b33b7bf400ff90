import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { messageResultResponse } from "@/lib/channels/web/web-channel";
import { readJson, route } from "@/lib/http/route";
import { handleMessage, ZMessageText } from "@/lib/runs/handle-message";

// Streams for as long as the run takes; the run itself survives a disconnect.
export const maxDuration = 800;

const ZChatRequest = z
  .strictObject({
    sessionId: z.string({ error: "sessionId is required." }),
    text: z.string({ error: "text is required." }),
    /** Workspace paths of files uploaded with POST /api/sessions/:id/attachments. */
    attachments: z.array(z.string().min(1).max(1_024)).max(20).optional(),
  })
  // A message may be just files; otherwise the usual rules for its text apply.
  .superRefine((value, context) => {
    if (value.attachments?.length && !value.text.trim()) return;
    const text = ZMessageText.safeParse(value.text);
    if (!text.success) context.addIssue({ code: "custom", path: ["text"], message: text.error.issues[0]?.message ?? "The message is empty." });
  });

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChatRequest);
  return messageResultResponse(
    await handleMessage({ userId: user.id, sessionId: input.sessionId, text: input.text, attachments: input.attachments, trigger: "web", instructions: user.instructions }),
    request.signal,
  );
});
