import { db } from "@/lib/db/client";
import type { Prisma, Step, StepType } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { stepKey } from "./sessions";

/**
 * Steps are the session's trace and the source of its history. `recordStep` allocates the next
 * per-session sequence number atomically and writes the row before the work it describes starts.
 */
export type TStepSummary = {
  id: string;
  key: string;
  seq: number;
  parentStepId: string | null;
  type: "user_input" | "model_call" | "tool_call" | "system_note";
  name: string;
  status: "running" | "completed" | "failed";
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: Date;
  endedAt: Date | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  provider: string | null;
  model: string | null;
};

export function toStepSummary(step: Step): TStepSummary {
  return {
    id: step.id,
    key: stepKey(step.seq),
    seq: step.seq,
    parentStepId: step.parentStepId,
    type: step.type.toLowerCase() as TStepSummary["type"],
    name: step.name,
    status: step.status.toLowerCase() as TStepSummary["status"],
    input: step.input,
    output: step.output,
    error: step.error,
    startedAt: step.startedAt,
    endedAt: step.endedAt,
    durationMs: step.endedAt ? step.endedAt.getTime() - step.startedAt.getTime() : null,
    inputTokens: step.inputTokens,
    outputTokens: step.outputTokens,
    provider: step.provider,
    model: step.model,
  };
}

export async function recordStep(options: {
  sessionId: string;
  userId: string;
  type: StepType;
  name: string;
  status?: "RUNNING" | "COMPLETED" | "FAILED";
  input?: Prisma.InputJsonValue;
  output?: Prisma.InputJsonValue;
  error?: string;
  parentStepId?: string;
}): Promise<Step> {
  const { nextSeq } = await db().chatSession.update({
    where: { id: options.sessionId },
    data: { nextSeq: { increment: 1 } },
    select: { nextSeq: true },
  });
  const finished = options.status && options.status !== "RUNNING";
  // Both timestamps from this process's clock, so durations never come out negative.
  const now = new Date();
  return db().step.create({
    data: {
      sessionId: options.sessionId,
      userId: options.userId,
      seq: nextSeq - 1,
      type: options.type,
      name: options.name,
      status: options.status ?? "RUNNING",
      input: options.input,
      output: options.output,
      error: options.error,
      parentStepId: options.parentStepId,
      startedAt: now,
      endedAt: finished ? now : undefined,
    },
  });
}

export async function finishStep(
  stepId: string,
  result: { status: "COMPLETED" | "FAILED"; output?: Prisma.InputJsonValue; error?: string; inputTokens?: number; outputTokens?: number; provider?: string; model?: string },
): Promise<void> {
  await db().step.update({ where: { id: stepId }, data: { ...result, endedAt: new Date() } });
}

export async function listSteps(options: { sessionId: string; userId: string }): Promise<Step[]> {
  return db().step.findMany({ where: { sessionId: options.sessionId, userId: options.userId }, orderBy: { seq: "asc" } });
}

/** Accepts "s0003", "S3" or "3". */
export function parseStepKey(value: string): number {
  const match = /^s?0*(\d{1,9})$/i.exec(value.trim());
  if (!match || Number(match[1]) < 1) throw new AppError("bad_request", `"${value}" is not a step id. Step ids look like s0003 (see /steps).`);
  return Number(match[1]);
}

export async function getStepBySeqOrThrow(options: { sessionId: string; userId: string; seq: number }): Promise<Step> {
  const step = await db().step.findFirst({ where: { sessionId: options.sessionId, userId: options.userId, seq: options.seq } });
  if (!step) throw new AppError("not_found", `There is no step ${stepKey(options.seq)} in this session.`);
  return step;
}
