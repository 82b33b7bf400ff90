import { db } from "@/lib/db/client";
import type { Prisma, Step, StepType } from "@/lib/db/generated/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { withDatabaseRetry } from "@/lib/db/retry";
import { storableJson, storableJsonText, storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import type { TStepRow, TStepType } from "@/lib/wire/chat";
import { stepKey } from "./sessions";

/**
 * Steps are the session's trace and the source of its history. `recordStep` allocates the next
 * per-session sequence number atomically and writes the row before the work it describes starts.
 * Everything stored passes the storable filter (no NUL, well-formed strings), and writes are retried
 * on transient database errors, so a step is never lost to odd bytes or a dropped connection.
 */
const log = createLogger("steps");

export function toStepRow(step: Step): TStepRow {
  return {
    id: step.id,
    key: stepKey(step.seq),
    seq: step.seq,
    parentStepId: step.parentStepId,
    type: step.type.toLowerCase() as TStepType,
    name: step.name,
    status: step.status.toLowerCase() as TStepRow["status"],
    input: step.input,
    output: step.output,
    error: step.error,
    startedAt: step.startedAt.toISOString(),
    endedAt: step.endedAt?.toISOString() ?? null,
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
  return value === undefined ? null : storableJsonText(value);
}

/**
 * Writes a step with the next sequence number in one statement (allocate + insert): steps are on
 * the path to the first token, and every round trip to the database shows up there.
 */
export async function recordStep(options: TRecordStepOptions): Promise<{ id: string; seq: number }> {
  const status = options.status ?? "RUNNING";
  // Timestamps from this process's clock, like finishStep's, so durations are never negative.
  const now = new Date();
  const rows = await withDatabaseRetry(
    "record a step",
    () => db().$queryRaw<{ id: string; seq: number }[]>`
    WITH next AS (
      UPDATE "chat_sessions" SET "nextSeq" = "nextSeq" + 1 WHERE "id" = ${options.sessionId}::uuid AND "userId" = ${options.userId}::uuid RETURNING "nextSeq" - 1 AS seq
    )
    INSERT INTO "steps" ("id", "sessionId", "userId", "seq", "type", "name", "status", "input", "output", "error", "parentStepId", "startedAt", "endedAt")
    SELECT gen_random_uuid(), ${options.sessionId}::uuid, ${options.userId}::uuid, next.seq, ${options.type}::"StepType", ${storableText(options.name)},
           ${status}::"StepStatus", ${jsonOrNull(options.input)}::jsonb, ${jsonOrNull(options.output)}::jsonb, ${options.error === undefined ? null : storableText(options.error)},
           ${options.parentStepId ?? null}::uuid, ${now}, ${status === "RUNNING" ? null : now}
    FROM next
    RETURNING "id", "seq"`,
  );
  const row = rows[0];
  if (!row) throw new AppError("not_found", "No such session.");
  return row;
}

export type TFinishStep = {
  status: "COMPLETED" | "FAILED";
  output?: Prisma.InputJsonValue;
  error?: string;
  inputTokens?: number;
  outputTokens?: number;
  provider?: string;
  model?: string;
};

/**
 * Completes a step. If the result itself cannot be stored, the step is still closed — FAILED with
 * the reason — so it never stays RUNNING and the run goes on.
 */
export async function finishStep(stepId: string, result: TFinishStep): Promise<void> {
  const endedAt = new Date();
  try {
    const data = {
      ...result,
      output: result.output === undefined ? undefined : storableJson(result.output),
      error: result.error === undefined ? undefined : storableText(result.error),
      endedAt,
    };
    await withDatabaseRetry("finish a step", () => db().step.update({ where: { id: stepId }, data }));
  } catch (error) {
    log.error("could not store a step's result", { stepId, error });
    await withDatabaseRetry("mark a step failed", () =>
      db().step.update({ where: { id: stepId }, data: { status: "FAILED", error: "The result of this step could not be stored.", endedAt } }),
    );
  }
}

/**
 * Completes a model call's step and remembers the provider and model on the session, in one
 * statement (this runs once per model call of every run).
 */
export async function finishModelStep(options: {
  stepId: string;
  sessionId: string;
  output: Prisma.InputJsonValue;
  inputTokens: number;
  outputTokens: number;
  provider: string;
  model: string;
}): Promise<void> {
  const endedAt = new Date();
  try {
    await withDatabaseRetry(
      "finish a model step",
      () => rawQuery(sql`
      WITH finished AS (
        UPDATE "steps" SET "status" = 'COMPLETED', "output" = ${storableJsonText(options.output)}::jsonb, "inputTokens" = ${options.inputTokens}::int,
               "outputTokens" = ${options.outputTokens}::int, "provider" = ${options.provider}::text, "model" = ${options.model}::text, "endedAt" = ${endedAt}::timestamp
        WHERE "id" = ${options.stepId}::uuid RETURNING "sessionId"
      )
      UPDATE "chat_sessions" SET "lastProvider" = ${options.provider}::text, "lastModel" = ${options.model}::text
      WHERE "id" = (SELECT "sessionId" FROM finished) AND ("lastProvider" IS DISTINCT FROM ${options.provider}::text OR "lastModel" IS DISTINCT FROM ${options.model}::text)`),
    );
  } catch (error) {
    log.error("could not store a model step's result", { stepId: options.stepId, error });
    await finishStep(options.stepId, { status: "FAILED", error: "The result of this step could not be stored." });
  }
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
