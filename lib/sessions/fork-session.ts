import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import type { ChatSession, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { getSessionOrThrow, stepKey } from "./sessions";
import { getStepBySeqOrThrow } from "./steps";

/**
 * A new session with the history up to and including one step; the original is untouched and the
 * fork records where it came from. Steps keep their numbers, so s0003 means the same in both.
 */
export async function forkSession(options: { userId: string; sessionId: string; seq: number; title?: string }): Promise<ChatSession> {
  const source = await getSessionOrThrow(options);
  const target = await getStepBySeqOrThrow({ sessionId: source.id, userId: options.userId, seq: options.seq });
  const steps = await db().step.findMany({ where: { sessionId: source.id, seq: { lte: target.seq } }, orderBy: { seq: "asc" } });
  if (steps.some((step) => step.status === "RUNNING")) {
    throw new AppError("conflict", `Step ${stepKey(target.seq)} or one before it is still running. Fork after it finishes.`);
  }
  const ids = new Map(steps.map((step) => [step.id, randomUUID()]));
  return db().$transaction(async (tx) => {
    const fork = await tx.chatSession.create({
      data: {
        userId: options.userId,
        title: options.title?.trim() || `${source.title} (fork at ${stepKey(target.seq)})`.slice(0, 200),
        status: "SUCCESS",
        parentSessionId: source.id,
        forkedFromSeq: target.seq,
        nextSeq: target.seq + 1,
        lastProvider: source.lastProvider,
        lastModel: source.lastModel,
        model: source.model,
      },
    });
    await tx.step.createMany({
      data: steps.map((step) => ({
        id: ids.get(step.id)!,
        sessionId: fork.id,
        userId: options.userId,
        seq: step.seq,
        parentStepId: step.parentStepId ? (ids.get(step.parentStepId) ?? null) : null,
        type: step.type,
        name: step.name,
        status: step.status,
        input: (step.input ?? undefined) as Prisma.InputJsonValue | undefined,
        output: (step.output ?? undefined) as Prisma.InputJsonValue | undefined,
        error: step.error,
        startedAt: step.startedAt,
        endedAt: step.endedAt,
        inputTokens: step.inputTokens,
        outputTokens: step.outputTokens,
        provider: step.provider,
        model: step.model,
      })),
    });
    return fork;
  });
}
