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

export type TRecordStepOptions = {
  sessionId: string;
  userId: string;
  type: StepType;
  name: string;
  status?: "RUNNING" | "COMPLETED" | "FAILED";
  input?: Prisma.InputJsonValue;
  output?: Prisma.InputJsonValue;
  error?: string;
  parentStepId?: string;
};

function jsonOrNull(value: Prisma.InputJsonValue | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/**
 * Writes a step with the next sequence number in one statement (allocate + insert): steps are on
 * the path to the first token, and every round trip to the database shows up there.
 */
export async function recordStep(options: TRecordStepOptions): Promise<{ id: string; seq: number }> {
  const status = options.status ?? "RUNNING";
  // Timestamps from this process's clock, like finishStep's, so durations are never negative.
  const now = new Date();
  const rows = await db().$queryRaw<{ id: string; seq: number }[]>`
    WITH next AS (
      UPDATE "chat_sessions" SET "nextSeq" = "nextSeq" + 1 WHERE "id" = ${options.sessionId}::uuid RETURNING "nextSeq" - 1 AS seq
    )
    INSERT INTO "steps" ("id", "sessionId", "userId", "seq", "type", "name", "status", "input", "output", "error", "parentStepId", "startedAt", "endedAt")
    SELECT gen_random_uuid(), ${options.sessionId}::uuid, ${options.userId}::uuid, next.seq, ${options.type}::"StepType", ${options.name},
           ${status}::"StepStatus", ${jsonOrNull(options.input)}::jsonb, ${jsonOrNull(options.output)}::jsonb, ${options.error ?? null},
           ${options.parentStepId ?? null}::uuid, ${now}, ${status === "RUNNING" ? null : now}
    FROM next
    RETURNING "id", "seq"`;
  const row = rows[0];
  if (!row) throw new AppError("not_found", "No such session.");
  return row;
}

/**
 * Starts a run in one statement: claims the session (INIT, SUCCESS or FAILED → RUNNING with this
 * process's lease), names a new session after its first message, and writes the run's first step.
 * Returns undefined when the session is already running (or is not the caller's).
 */
export async function claimSessionAndRecordStep(options: {
  sessionId: string;
  userId: string;
  runnerId: string;
  leaseExpiresAt: Date;
  title: string | null;
  step: Pick<TRecordStepOptions, "type" | "name" | "input">;
}): Promise<{ id: string; seq: number; allowedTools: string[] } | undefined> {
  const now = new Date();
  const rows = await db().$queryRaw<{ id: string; seq: number; allowedTools: string[] }[]>`
    WITH claimed AS (
      UPDATE "chat_sessions"
      SET "status" = 'RUNNING', "statusReason" = NULL, "runnerId" = ${options.runnerId}, "leaseExpiresAt" = ${options.leaseExpiresAt},
          "nextSeq" = "nextSeq" + 1, "updatedAt" = ${now},
          "title" = CASE WHEN "title" = 'New chat' AND ${options.title}::text IS NOT NULL THEN ${options.title}::text ELSE "title" END
      WHERE "id" = ${options.sessionId}::uuid AND "userId" = ${options.userId}::uuid AND "status" IN ('INIT', 'SUCCESS', 'FAILED')
      RETURNING "nextSeq" - 1 AS seq, "allowedTools"
    ), inserted AS (
      INSERT INTO "steps" ("id", "sessionId", "userId", "seq", "type", "name", "status", "input", "startedAt", "endedAt")
      SELECT gen_random_uuid(), ${options.sessionId}::uuid, ${options.userId}::uuid, claimed.seq, ${options.step.type}::"StepType", ${options.step.name},
             'COMPLETED', ${jsonOrNull(options.step.input)}::jsonb, ${now}, ${now}
      FROM claimed
      RETURNING "id", "seq"
    )
    SELECT inserted."id", inserted."seq", claimed."allowedTools" FROM inserted, claimed`;
  return rows[0];
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
