import { db } from "@/lib/db/client";
import type { TDelivery } from "./deliver-replies";
import { readRunAnswer, type TRunAnswer } from "@/lib/runs/run-answer";

/**
 * The rest of an answer after an approval decided on the web. When a run a chat started paused,
 * its conversation waits for that approval; the run the decision starts (lib/runs/decide-approval)
 * ends like any run, and the channels' run-end hook queues this. It takes the wait (once: the
 * update is the check) only when the approval has been decided — the paused run's own end finds it
 * still pending — and reads what the run said after the call that waited.
 */
export type TContinuation = { delivery: Omit<TDelivery, "text">; conversationId: string; answer: TRunAnswer };

export async function continueAfterApproval(options: { sessionId: string; userId: string }): Promise<TContinuation | undefined> {
  const conversation = await db().channelConversation.findFirst({ where: { sessionId: options.sessionId, userId: options.userId, awaitingApprovalId: { not: null } } });
  if (!conversation?.awaitingApprovalId || !conversation.replyMessageId) return undefined;
  const approval = await db().approval.findFirst({ where: { id: conversation.awaitingApprovalId, userId: options.userId }, include: { step: { select: { seq: true } } } });
  if (approval?.status === "PENDING") return undefined;
  const taken = await db().channelConversation.updateMany({ where: { id: conversation.id, awaitingApprovalId: conversation.awaitingApprovalId }, data: { awaitingApprovalId: null } });
  if (!taken.count || !approval) return undefined;
  const answer = await readRunAnswer({ userId: options.userId, sessionId: options.sessionId, afterSeq: approval.step.seq });
  return {
    conversationId: conversation.id,
    answer,
    delivery: {
      accountId: conversation.accountId,
      chatScope: conversation.chatScope,
      messageId: conversation.replyMessageId,
      conversationId: conversation.id,
      sentAt: (conversation.replyReceivedAt ?? new Date()).toISOString(),
      sessionId: options.sessionId,
      userId: options.userId,
      webOrigin: conversation.webOrigin ?? "",
    },
  };
}
