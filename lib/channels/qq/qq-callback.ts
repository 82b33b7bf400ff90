import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import type { TOpenedAccount } from "../channel-accounts";
import { isFresh, rejected, type TCallbackOutcome } from "../callback-types";
import type { TInboundAttachment } from "../inbound-message";
import { signQq, verifyQq } from "./qq-signature";

/**
 * POST /api/channels/qq/:accountId/callback (QQ's webhook mode). The Ed25519 signature over
 * `X-Signature-Timestamp` + the raw body is checked before anything is parsed, on every request —
 * the op 13 validation too: answering an unsigned one would sign whatever `event_ts + plain_token`
 * a stranger sent, which is exactly what a forged dispatch needs. Then:
 * - op 13: `{plain_token, signature}` with the signature over `event_ts + plain_token`;
 * - op 0 C2C_MESSAGE_CREATE / GROUP_AT_MESSAGE_CREATE: a message (the bot's mention removed) and
 *   its attachments' URLs (downloaded later, by the job);
 * - anything else: acknowledged and left alone. Dispatches are acknowledged with `{"op":12,"d":0}`.
 */
export const QQ_ACK = { op: 12, d: 0 };

const ZValidation = z.object({ op: z.literal(13), d: z.object({ plain_token: z.string().min(1).max(1_000), event_ts: z.union([z.string(), z.number()]).transform(String) }) });

// QQ's attachment: {content_type, filename, url, size, width?, height?}; the url is on its CDN,
// sometimes without a scheme. Malformed entries are dropped, not the message.
const ZAttachment = z.object({
  url: z.string().min(1).max(4_000),
  filename: z.string().max(500).optional().catch(undefined),
  content_type: z.string().max(200).optional().catch(undefined),
  size: z.number().nonnegative().optional().catch(undefined),
});
const ZMessageData = z.object({
  id: z.string().min(1).max(200),
  content: z.string().max(100_000).default(""),
  timestamp: z.string().max(100).optional(),
  attachments: z.array(z.unknown()).optional(),
});
const ZDirectMessage = ZMessageData.extend({ author: z.object({ user_openid: z.string().min(1).max(200) }) });
const ZGroupMessage = ZMessageData.extend({ group_openid: z.string().min(1).max(200), author: z.object({ member_openid: z.string().min(1).max(200) }) });
const ZDispatch = z.object({ op: z.literal(0), id: z.string().max(200).optional(), t: z.string().max(100), d: z.unknown() });

/** The mention of the bot QQ leaves in a group message (`<@!123>` or `<@member>`), and the space around it. */
function withoutMentions(content: string): string {
  return content.replace(/<@!?[\w-]+>/g, " ").replace(/\s+/g, " ").trim();
}

/** The message's attachments as the job downloads them; a URL without a scheme is https. */
function attachmentsOf(raw: unknown[] | undefined): TInboundAttachment[] {
  const attachments: TInboundAttachment[] = [];
  for (const entry of (raw ?? []).slice(0, 50)) {
    const parsed = ZAttachment.safeParse(entry);
    if (!parsed.success) continue;
    const { url, filename, content_type, size } = parsed.data;
    const absolute = url.startsWith("//") ? `https:${url}` : /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`;
    attachments.push({ source: "url", url: absolute, fileName: filename, contentType: content_type, size });
  }
  return attachments;
}

function sentAt(timestamp: string | undefined): string {
  const parsed = timestamp ? Date.parse(timestamp) : NaN;
  return new Date(Number.isFinite(parsed) ? parsed : Date.now()).toISOString();
}

export function readQqCallback(account: TOpenedAccount, request: Request, body: Uint8Array): TCallbackOutcome {
  const signature = request.headers.get("x-signature-ed25519")?.trim();
  const timestamp = request.headers.get("x-signature-timestamp")?.trim();
  if (!signature || !timestamp) throw rejected("X-Signature-Ed25519 and X-Signature-Timestamp are required.");
  if (!isFresh(timestamp, getBehaviourConfig().channels.timestampToleranceSeconds)) throw rejected("The signature timestamp is too far from this server's clock.");
  if (!verifyQq(account.secrets.appSecret, timestamp, body, signature)) throw rejected("The signature does not match the body.");

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    throw new AppError("bad_request", "The callback body is not valid JSON.");
  }
  const validation = ZValidation.safeParse(payload);
  if (validation.success) {
    const { plain_token, event_ts } = validation.data.d;
    return { kind: "answer", body: { plain_token, signature: signQq(account.secrets.appSecret, event_ts + plain_token) } };
  }
  const dispatch = ZDispatch.safeParse(payload);
  if (!dispatch.success) return { kind: "ignored", ack: QQ_ACK };
  const { t, d } = dispatch.data;
  if (t === "C2C_MESSAGE_CREATE") {
    const message = ZDirectMessage.safeParse(d);
    if (!message.success) throw new AppError("bad_request", "C2C_MESSAGE_CREATE without a message id or author.");
    const { id, content, timestamp: at, author, attachments } = message.data;
    return {
      kind: "message",
      eventId: id,
      message: { kind: "qq", messageId: id, chat: "direct", chatId: author.user_openid, senderId: author.user_openid, text: content.trim(), attachments: attachmentsOf(attachments), sentAt: sentAt(at) },
      ack: QQ_ACK,
    };
  }
  if (t === "GROUP_AT_MESSAGE_CREATE") {
    const message = ZGroupMessage.safeParse(d);
    if (!message.success) throw new AppError("bad_request", "GROUP_AT_MESSAGE_CREATE without a message id, group or author.");
    const { id, content, timestamp: at, group_openid, author, attachments } = message.data;
    return {
      kind: "message",
      eventId: id,
      message: { kind: "qq", messageId: id, chat: "group", chatId: group_openid, senderId: author.member_openid, text: withoutMentions(content), attachments: attachmentsOf(attachments), sentAt: sentAt(at) },
      ack: QQ_ACK,
    };
  }
  return { kind: "ignored", ack: QQ_ACK };
}
