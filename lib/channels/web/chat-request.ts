import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson } from "@/lib/http/route";
import { handleMessage, ZMessageText } from "@/lib/runs/handle-message";
import type { TMessageResult } from "@/lib/runs/message-result";

/**
 * POST /api/chat: one message from the chat page (or an API client) in, a run or a short reply
 * out. Served by the route handler (app/api/chat/route.ts) and, in a production server, by the
 * Node-level route that answers before Next.js (serve-chat.ts); both call this.
 */
export const ZChatRequest = z
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

export async function receiveChatMessage(request: Request): Promise<TMessageResult> {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChatRequest);
  return handleMessage({ userId: user.id, sessionId: input.sessionId, text: input.text, attachments: input.attachments, trigger: "web", instructions: user.instructions });
}
