import { z } from "zod";
import type { TChannelKindName } from "@/lib/wire/channels";

/**
 * A message a platform delivered, as every channel reads it once its signature has been checked:
 * who sent it, in which chat, the text with the bot's mention removed, and where a reply goes.
 * Stored with the inbound event (channel_events.message) and read back by the channel job. The
 * text is the sender's words and nothing more: data for the model, never an instruction to xclaw.
 */
/**
 * A picture or file that came with a message, as the platform described it: nothing is fetched on
 * the path the platform waits on. QQ gives a URL on its CDN; Feishu a key that its message
 * resource API serves to the bot. The file name is the sender's, only ever used (sanitised) as a
 * name, never as a path.
 */
export const ZInboundAttachment = z.discriminatedUnion("source", [
  z.object({ source: z.literal("url"), url: z.string().min(1).max(4_000), fileName: z.string().max(500).optional(), contentType: z.string().max(200).optional(), size: z.number().nonnegative().optional() }),
  z.object({ source: z.literal("feishu"), key: z.string().min(1).max(500), type: z.enum(["image", "file"]), fileName: z.string().max(500).optional() }),
]);
export type TInboundAttachment = z.infer<typeof ZInboundAttachment>;

export const ZInboundMessage = z.object({
  kind: z.enum(["qq", "feishu"]),
  /** The platform's id of the message; replies go to it (QQ msg_id, Feishu message_id). */
  messageId: z.string().min(1).max(200),
  chat: z.enum(["direct", "group"]),
  /** The group (QQ group_openid, Feishu chat_id); in a direct chat, the chat itself. */
  chatId: z.string().min(1).max(200),
  /** The sender on the platform (QQ user_openid / member_openid, Feishu open_id). */
  senderId: z.string().min(1).max(200),
  text: z.string().max(100_000),
  /** Pictures and files, downloaded by the channel job (inbound-attachments.ts). */
  attachments: z.array(ZInboundAttachment).max(50).default([]),
  /**
   * Feishu group messages: the open_ids the message mentions. The job compares them with the bot's
   * own open_id (which costs an API call, so it is not done on the path the platform waits on).
   */
  mentions: z.array(z.string().max(200)).max(100).optional(),
  /** When the platform says it was sent (ISO); the passive-reply window starts here. */
  sentAt: z.iso.datetime({ offset: true }),
  /** Where people read the session on the web: NEXTAUTH_URL, else the origin the callback came to. */
  webOrigin: z.string().max(2_000),
});
export type TInboundMessage = z.infer<typeof ZInboundMessage>;

/** "direct:<sender>" or "group:<chat>": which chat of a bot a conversation is, and where replies go. */
export function chatScopeOf(message: Pick<TInboundMessage, "chat" | "chatId" | "senderId">): string {
  return message.chat === "direct" ? `direct:${message.senderId}` : `group:${message.chatId}`;
}

export function parseChatScope(scope: string): { chat: "direct" | "group"; id: string } {
  const [chat, ...rest] = scope.split(":");
  return { chat: chat === "group" ? "group" : "direct", id: rest.join(":") };
}

export function channelLabel(kind: TChannelKindName): string {
  return kind === "qq" ? "QQ" : "Feishu";
}
