import { db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import type { TStepTools } from "@/lib/jobs/define-job";
import { NonRetriableError, RetryAfterError } from "@/lib/jobs/job-errors";
import { createLogger } from "@/lib/observability/logger";
import { recordStep } from "@/lib/sessions/steps";
import { kindName, openAccount, recordReplyOutcome } from "./channel-accounts";
import { reserveReplies } from "./conversations";
import { channelLabel, parseChatScope } from "./inbound-message";
import { describePlatformError, PlatformError } from "./platform-request";
import { PLATFORMS } from "./platforms";
import { splitText } from "./split-text";

/**
 * Sends a text back to the chat it answers, as job steps. The text is split at the platform's
 * length and the parts are counted against the message's reply window (QQ: msg_seq 1..5, for 60
 * minutes after a direct message, 5 in a group): the sequence numbers are reserved in one step
 * first, then each part is sent in a step of its own, so a retry (rate limit, server error) sends
 * only what is missing, with the same numbers. What no longer fits stays in the web session: the
 * last part that fits says where to read the rest, and a window that has closed leaves a note there.
 */
const log = createLogger("channels");
const DEFAULT_RETRY_MS = 2_000;

export type TDelivery = {
  accountId: string;
  chatScope: string;
  messageId: string;
  /** Replies are counted on the conversation's window and go to its newest message; without one (an unbound sender) `messageId` gets one reply. */
  conversationId?: string;
  /** When the message was sent (ISO): the window of a reply without a conversation. */
  sentAt: string;
  /** The session the text belongs to, for the link and the note; none for an unbound sender. */
  sessionId?: string;
  userId?: string;
  webOrigin: string;
  text: string;
};

type TPlannedReply = { messageId: string; sequence: number; text: string };

export function sessionLink(webOrigin: string, sessionId: string): string {
  return `${webOrigin}/chat/${sessionId}`;
}

async function planReplies(delivery: TDelivery): Promise<TPlannedReply[]> {
  const account = await db().channelAccount.findUnique({ where: { id: delivery.accountId } });
  if (!account) return [];
  const kind = kindName(account.kind);
  const window = PLATFORMS[kind].replyWindow();
  const minutes = parseChatScope(delivery.chatScope).chat === "group" ? window.groupMinutes : window.directMinutes;
  const parts = splitText(delivery.text, window.splitCharacters);
  if (!parts.length) return [];
  let messageId = delivery.messageId;
  let sequences: number[];
  if (delivery.conversationId) {
    ({ messageId, sequences } = await reserveReplies({ conversationId: delivery.conversationId, wanted: parts.length, windowMinutes: minutes, maxReplies: window.maxReplies }));
  } else {
    sequences = Date.parse(delivery.sentAt) > Date.now() - minutes * 60_000 ? [1] : [];
  }
  const link = delivery.sessionId ? sessionLink(delivery.webOrigin, delivery.sessionId) : undefined;
  if (!sequences.length) {
    if (delivery.sessionId && delivery.userId) {
      await recordStep({
        sessionId: delivery.sessionId,
        userId: delivery.userId,
        type: "SYSTEM_NOTE",
        name: "channel",
        status: "COMPLETED",
        input: { text: `Not sent to ${channelLabel(kind)}: it takes replies to a message for ${minutes} minutes and ${window.maxReplies} times at most. The answer is here.`, tone: "info" },
      }).catch((error: unknown) => log.warn("could not note an unsent answer", { sessionId: delivery.sessionId, error }));
    }
    return [];
  }
  const planned = parts.slice(0, sequences.length).map((text, index) => ({ messageId, sequence: sequences[index]!, text }));
  if (parts.length > sequences.length) {
    const last = planned.at(-1)!;
    const note = link ? `\n\n… the rest of the answer is in xclaw: ${link}` : "\n\n…";
    last.text = `${last.text.slice(0, Math.max(1, window.splitCharacters - note.length))}${note}`;
  }
  return planned;
}

/** One reply; a failure is recorded on the account and thrown as the jobs layer's retry or give-up. */
async function sendReply(delivery: TDelivery, reply: TPlannedReply, signal?: AbortSignal): Promise<{ sent: boolean }> {
  const row = await db().channelAccount.findUnique({ where: { id: delivery.accountId } });
  if (!row || !row.enabled) return { sent: false };
  try {
    const account = openAccount(row);
    await PLATFORMS[account.kind].sendReply(account, { chatScope: delivery.chatScope, messageId: reply.messageId, text: reply.text, sequence: reply.sequence }, signal);
  } catch (error) {
    const message = describePlatformError(error);
    await recordReplyOutcome(delivery.accountId, message);
    if (error instanceof PlatformError && error.retriable) throw new RetryAfterError(message, error.retryAfterMs ?? DEFAULT_RETRY_MS);
    throw error instanceof PlatformError || isAppError(error) ? new NonRetriableError(message) : error;
  }
  await recordReplyOutcome(delivery.accountId);
  return { sent: true };
}

/** Plans and sends; `id` keeps the step ids of two deliveries in one job apart. */
export async function deliverReplies(step: TStepTools, id: string, delivery: TDelivery, signal?: AbortSignal): Promise<{ sent: number }> {
  const planned = await step.run(`${id}:plan`, () => planReplies(delivery));
  let sent = 0;
  for (const reply of planned) {
    const result = await step.run(`${id}:send-${reply.sequence}`, () => sendReply(delivery, reply, signal));
    if (result.sent) sent++;
  }
  return { sent };
}
