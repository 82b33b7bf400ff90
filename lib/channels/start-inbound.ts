import { db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { NonRetriableError, RetryAfterError } from "@/lib/jobs/job-errors";
import { handleMessage } from "@/lib/runs/handle-message";
import type { TConversationControls } from "@/lib/runs/slash-commands";
import { parseStepKey } from "@/lib/sessions/steps";
import { bindSender } from "./bind-sender";
import { boundUserOf } from "./bindings";
import { openAccount, recordReplyOutcome } from "./channel-accounts";
import { conversationFor, openReplyWindow, startNewConversationSession } from "./conversations";
import type { TDelivery } from "./deliver-replies";
import { giveBackInboundEvent, recordStartedRun, takeInboundEvent } from "./inbound-events";
import { receiveAttachments } from "./inbound-attachments";
import { chatScopeOf, type TInboundMessage } from "./inbound-message";
import { PlatformError } from "./platform-request";
import { PLATFORMS } from "./platforms";

/**
 * The first step of the channel job: who sent the message and what it asks for. A message not
 * addressed to this bot (a Feishu group message mentioning only others) is dropped. An unbound
 * sender gets one short instruction (or is bound by `/bind <code>`) and nothing runs. A bound
 * sender's pictures and files are downloaded into their workspace (inbound-attachments.ts), and the
 * message goes to their own session for this chat through handleMessage (trigger "channel"):
 * commands are answered there, anything else starts a run. The event is taken by one
 * job run in the statement that reads it, and the run it starts is recorded on it at once, so a
 * later attempt (after a crash or a lost lease) follows that run instead of starting another. A
 * start refused for a passing reason (the server or the person has too many runs going) gives the
 * event back and asks the jobs layer to try again later.
 */
export const UNBOUND_REPLY = "This bot answers xclaw users. In xclaw, open Settings → Channels, get a code and send /bind <code> here.";
export const BUSY_REPLY = "Still working on your previous message. Send /stop to stop it.";
const NON_TEXT_REPLY = "Only text, pictures and files are read for now: write your request as text.";

export type TStarted =
  | { kind: "none" }
  | { kind: "reply"; delivery: TDelivery }
  | { kind: "run"; delivery: Omit<TDelivery, "text">; sessionId: string; userId: string; conversationId: string; afterSeq: number };

function controlsFor(options: { accountId: string; message: TInboundMessage; userId: string; conversationId: string }): TConversationControls {
  return {
    startNewSession: () => startNewConversationSession(options),
    bind: (code) => bindSender({ accountId: options.accountId, message: options.message, code }),
  };
}

/** The message as the run reads it: the sender's text, then a note per attachment that was skipped. */
function runText(text: string, notes: string[]): string {
  return [text, ...notes].filter(Boolean).join("\n\n");
}

export async function startInbound(eventId: string, jobRunId: string, signal?: AbortSignal): Promise<TStarted> {
  const taken = await takeInboundEvent(eventId, jobRunId);
  // Another job run handles it: nothing runs twice.
  if (!taken) return { kind: "none" };
  const { accountId, message } = taken;
  // Once a run has started, nothing may give the event back: a retry would start it again.
  let started = false;
  const single: TDelivery = { accountId, chatScope: chatScopeOf(message), messageId: message.messageId, sentAt: message.sentAt, webOrigin: message.webOrigin, text: "" };
  if (taken.started) {
    // An earlier attempt of this job run started the run: follow it, never start another.
    const { sessionId, userId, conversationId, afterSeq } = taken.started;
    return { kind: "run", delivery: { ...single, conversationId, sessionId, userId }, sessionId, userId, conversationId, afterSeq };
  }
  try {
    const row = await db().channelAccount.findUnique({ where: { id: accountId } });
    if (!row) return { kind: "none" };
    const account = openAccount(row);
    // A Feishu group message that mentions someone else: not for this bot, not even an instruction.
    if (!(await PLATFORMS[account.kind].addressesBot(account, message, signal))) return { kind: "none" };
    const user = await boundUserOf({ accountId, externalUserId: message.senderId });
    const bind = /^\/bind(?:\s+(.*))?$/is.exec(message.text);
    if (!user) {
      const text = bind ? await bindSender({ accountId, message, code: bind[1] ?? "" }) : UNBOUND_REPLY;
      return { kind: "reply", delivery: { ...single, text } };
    }
    if (!message.text && !message.attachments.length) return { kind: "reply", delivery: { ...single, text: NON_TEXT_REPLY } };

    const conversation = await conversationFor({ accountId, message, userId: user.id });
    const command = message.text.startsWith("/");
    // Replies go to the newest message (a fresh window); a message that is not a command answers a
    // paused run itself (its approval is denied), so the wait for that approval ends.
    await openReplyWindow({ conversationId: conversation.id, message, keepApprovalWait: command });
    const delivery = { ...single, conversationId: conversation.id, sessionId: conversation.sessionId, userId: user.id };
    // Downloaded here, in the job, into the person's workspace; what could not be read is named.
    const received = message.attachments.length ? await receiveAttachments({ account, userId: user.id, message, signal }) : { files: [], notes: [] };
    let result;
    try {
      result = await handleMessage({
        userId: user.id,
        sessionId: conversation.sessionId,
        text: runText(message.text, received.notes),
        files: received.files,
        trigger: "channel",
        channel: message.kind,
        conversation: controlsFor({ accountId, message, userId: user.id, conversationId: conversation.id }),
        instructions: user.instructions,
      });
    } catch (error) {
      if (!isAppError(error) || error.code === "rate_limited" || error.code === "unavailable") throw error;
      // The person's own request cannot be done (a busy session, a wrong command): they are told why.
      return { kind: "reply", delivery: { ...delivery, text: error.code === "conflict" && !command ? BUSY_REPLY : error.message } };
    }
    started = true;
    if (result.kind === "reply") return { kind: "reply", delivery: { ...delivery, text: result.text } };
    // The run's first event names the step it started from; its answer is what comes after.
    let afterSeq = 0;
    for await (const event of result.run.follow()) {
      if (event.type === "run-start") afterSeq = event.userStep ? parseStepKey(event.userStep) : 0;
      break;
    }
    await recordStartedRun(eventId, { sessionId: conversation.sessionId, userId: user.id, conversationId: conversation.id, afterSeq });
    return { kind: "run", delivery, sessionId: conversation.sessionId, userId: user.id, conversationId: conversation.id, afterSeq };
  } catch (error) {
    if (started) throw error;
    await giveBackInboundEvent(eventId);
    if (isAppError(error) && (error.code === "rate_limited" || error.code === "unavailable")) {
      throw new RetryAfterError(error.message, Number(error.headers["retry-after"] ?? 5) * 1000);
    }
    if (error instanceof PlatformError) {
      // The platform would not say who the bot is (Feishu's bot info): shown on the bot's row.
      await recordReplyOutcome(accountId, error.message);
      throw error.retriable ? new RetryAfterError(error.message, error.retryAfterMs ?? 5_000) : new NonRetriableError(error.message);
    }
    throw error;
  }
}
