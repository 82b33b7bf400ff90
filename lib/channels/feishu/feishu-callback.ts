import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import type { TOpenedAccount } from "../channel-accounts";
import { isFresh, rejected, type TCallbackOutcome } from "../callback-types";
import type { TInboundAttachment } from "../inbound-message";
import { decryptFeishu, feishuSignature, sameText } from "./feishu-crypto";

/**
 * POST /api/channels/feishu/:accountId/events. A signed request (`X-Lark-Request-Timestamp`,
 * `-Nonce`, `X-Lark-Signature`) is checked on the raw bytes before anything is parsed; then the
 * body is decrypted with the encrypt key and the verification token inside it is compared. Feishu
 * does not sign the one-time `url_verification`: it is answered `{challenge}` only when it came
 * encrypted with this bot's key (the challenge arrives encrypted when a key is set) and carries its
 * token. Every other request must be signed. Messages are `im.message.receive_v1` from people:
 * direct (p2p) ones, and group ones that mention someone, the `@_user_N` keys removed; the job
 * drops group messages whose mentions do not include this bot (start-inbound.ts). Pictures and
 * files are recorded by their keys and downloaded by the job.
 */
export const FEISHU_ACK = {};

const ZUrlVerification = z.object({ type: z.literal("url_verification"), challenge: z.string().min(1).max(1_000), token: z.string().max(500) });

const ZMessageEvent = z.object({
  schema: z.literal("2.0"),
  header: z.object({ event_id: z.string().min(1).max(200), event_type: z.string().max(200), token: z.string().max(500) }),
  event: z.unknown(),
});

const ZReceiveMessage = z.object({
  sender: z.object({ sender_type: z.string().max(50), sender_id: z.object({ open_id: z.string().min(1).max(200) }) }),
  message: z.object({
    message_id: z.string().min(1).max(200),
    chat_id: z.string().min(1).max(200),
    chat_type: z.string().max(50),
    message_type: z.string().max(50),
    content: z.string().max(200_000),
    create_time: z.string().max(30).optional(),
    mentions: z.array(z.object({ key: z.string().max(100), id: z.object({ open_id: z.string().max(200).optional() }).optional() })).max(100).optional(),
  }),
});

function decrypted(payload: unknown, account: TOpenedAccount): { event: unknown; encrypted: boolean } {
  const encrypt = (payload as { encrypt?: unknown } | null)?.encrypt;
  if (typeof encrypt !== "string") return { event: payload, encrypted: false };
  let text: string;
  try {
    text = decryptFeishu(encrypt, account.secrets.encryptKey ?? "");
  } catch {
    throw rejected("The body could not be decrypted with this bot's encrypt key.");
  }
  try {
    return { event: JSON.parse(text), encrypted: true };
  } catch {
    throw new AppError("bad_request", "The decrypted body is not valid JSON.");
  }
}

function textOf(message: z.infer<typeof ZReceiveMessage>["message"]): string {
  if (message.message_type !== "text") return "";
  let text = "";
  try {
    const content = JSON.parse(message.content) as { text?: unknown };
    text = typeof content.text === "string" ? content.text : "";
  } catch {
    return "";
  }
  for (const mention of message.mentions ?? []) text = text.replaceAll(mention.key, " ");
  return text.replace(/@_user_\d+/g, " ").replace(/[ \t]+/g, " ").trim();
}

// Message types whose content names one resource: {image_key} for images, {file_key, file_name} else.
const RESOURCE_TYPES: Record<string, "image" | "file"> = { image: "image", file: "file", media: "file", audio: "file" };

/** The picture or file a message is, fetched later by the job from the message resource API. */
function attachmentsOf(message: z.infer<typeof ZReceiveMessage>["message"]): TInboundAttachment[] {
  const type = RESOURCE_TYPES[message.message_type];
  if (!type) return [];
  let content: { image_key?: unknown; file_key?: unknown; file_name?: unknown };
  try {
    content = JSON.parse(message.content) as typeof content;
  } catch {
    return [];
  }
  const key = type === "image" ? content.image_key : content.file_key;
  if (typeof key !== "string" || !key || key.length > 500) return [];
  const fileName = typeof content.file_name === "string" ? content.file_name.slice(0, 500) : undefined;
  return [{ source: "feishu", key, type, fileName }];
}

export function readFeishuCallback(account: TOpenedAccount, request: Request, body: Uint8Array): TCallbackOutcome {
  const timestamp = request.headers.get("x-lark-request-timestamp")?.trim();
  const nonce = request.headers.get("x-lark-request-nonce")?.trim();
  const signature = request.headers.get("x-lark-signature")?.trim();
  const encryptKey = account.secrets.encryptKey ?? "";
  const signed = !!(timestamp && nonce && signature);
  if (signed) {
    if (!isFresh(timestamp!, getBehaviourConfig().channels.timestampToleranceSeconds)) throw rejected("The request timestamp is too far from this server's clock.");
    if (!sameText(feishuSignature(timestamp!, nonce!, encryptKey, body), signature!.toLowerCase())) throw rejected("X-Lark-Signature does not match the body.");
  } else if (timestamp || nonce || signature) {
    throw rejected("X-Lark-Request-Timestamp, X-Lark-Request-Nonce and X-Lark-Signature go together.");
  }

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    if (!signed) throw rejected("X-Lark-Signature is required.");
    throw new AppError("bad_request", "The callback body is not valid JSON.");
  }
  const { event, encrypted } = decrypted(payload, account);
  const token = account.secrets.verificationToken ?? "";

  const verification = ZUrlVerification.safeParse(event);
  if (verification.success) {
    if (!signed && !encrypted) throw rejected("An unsigned url_verification must arrive encrypted with this bot's encrypt key.");
    if (!sameText(verification.data.token, token)) throw rejected("The verification token is not this bot's.");
    return { kind: "answer", body: { challenge: verification.data.challenge } };
  }
  if (!signed) throw rejected("X-Lark-Signature is required.");
  const parsed = ZMessageEvent.safeParse(event);
  if (!parsed.success) return { kind: "ignored", ack: FEISHU_ACK };
  const { header } = parsed.data;
  if (!sameText(header.token, token)) throw rejected("The verification token is not this bot's.");
  if (header.event_type !== "im.message.receive_v1") return { kind: "ignored", ack: FEISHU_ACK };
  const received = ZReceiveMessage.safeParse(parsed.data.event);
  if (!received.success) throw new AppError("bad_request", "im.message.receive_v1 without a sender or message.");
  const { sender, message } = received.data;
  const group = message.chat_type !== "p2p";
  // Other bots, and group messages that do not mention anyone (so not the bot), are not for us.
  // Whether a mention is this bot's is checked by the job (it needs the bot's open_id from the API).
  if (sender.sender_type !== "user" || (group && !message.mentions?.length)) return { kind: "ignored", ack: FEISHU_ACK };
  const mentions = group ? (message.mentions ?? []).flatMap((mention) => (mention.id?.open_id ? [mention.id.open_id] : [])) : undefined;
  const createdAt = Number(message.create_time);
  return {
    kind: "message",
    eventId: header.event_id,
    message: {
      kind: "feishu",
      messageId: message.message_id,
      chat: group ? "group" : "direct",
      chatId: message.chat_id,
      senderId: sender.sender_id.open_id,
      text: textOf(message),
      attachments: attachmentsOf(message),
      ...(mentions ? { mentions } : {}),
      sentAt: new Date(Number.isFinite(createdAt) && createdAt > 0 ? createdAt : Date.now()).toISOString(),
    },
    ack: FEISHU_ACK,
  };
}
