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
  // Workers (multi-agent) hang under the steps that go: their sessions go with them (one tree).
  const removedSteps = await db().step.findMany({ where: { sessionId: session.id, seq: { gte: options.seq } }, select: { id: true } });
  const workers = await db().agentTask.findMany({ where: { userId: options.userId, parentStepId: { in: removedSteps.map((step) => step.id) } }, select: { id: true, sessionId: true } });
  const workerSessions = workers.flatMap((worker) => (worker.sessionId ? [worker.sessionId] : []));
  if (workerSessions.length && (await db().chatSession.count({ where: { id: { in: workerSessions }, status: { in: ["RUNNING", "PAUSED"] } } }))) {
    throw new AppError("conflict", "Workers started by these steps are still running or waiting for approval. Let them finish (or deny their approvals), then roll back.");
  }
  return db().$transaction(async (tx) => {
    await tx.agentTask.deleteMany({ where: { id: { in: workers.map((worker) => worker.id) } } });
    await tx.chatSession.deleteMany({ where: { id: { in: workerSessions }, userId: options.userId } });
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
