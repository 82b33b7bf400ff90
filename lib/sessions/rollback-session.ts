import { db } from "@/lib/db/client";
import type { ChatSession } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { getSessionOrThrow, stepKey } from "./sessions";
import { getStepBySeqOrThrow } from "./steps";

/**
 * Drops a step and everything after it from the session, so the conversation continues as if they
 * had never happened. Numbering continues from the dropped step. Not while a run is in progress.
 */
export async function rollbackSession(options: { userId: string; sessionId: string; seq: number }): Promise<{ session: ChatSession; removed: number }> {
  const session = await getSessionOrThrow(options);
  if (session.status === "RUNNING" || session.status === "PAUSED") {
    throw new AppError("conflict", "This session is running. Stop it before rolling back.");
  }
  await getStepBySeqOrThrow({ sessionId: session.id, userId: options.userId, seq: options.seq });
  return db().$transaction(async (tx) => {
    const { count } = await tx.step.deleteMany({ where: { sessionId: session.id, seq: { gte: options.seq } } });
    const remaining = await tx.step.count({ where: { sessionId: session.id } });
    const updated = await tx.chatSession.update({
      where: { id: session.id },
      data: {
        nextSeq: options.seq,
        status: remaining ? "SUCCESS" : "INIT",
        statusReason: `rolled back to before ${stepKey(options.seq)}`,
      },
    });
    return { session: updated, removed: count };
  });
}
