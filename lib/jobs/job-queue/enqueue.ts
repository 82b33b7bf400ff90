import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { announceCancel, announceWork, JOBS_CHANNEL } from "@/lib/jobs/wake-bus";
import { lockKeys, notify, NOW, textList, uuidList, type TClient } from "./queue-sql";

/**
 * Putting work on the queue: an event's id recorded (a repeat within 24 hours is ignored) and its
 * job runs created, with the singleton decisions taken under the keys' locks.
 */
export type TNewJobRun = {
  id: string;
  jobId: string;
  trigger: string;
  eventName: string;
  eventId: string;
  data: unknown;
  maxAttempts: number;
  concurrencyKey?: string;
  concurrencyLimit?: number;
  singletonKey?: string;
  singletonMode?: "skip" | "cancel";
  startTimeoutMs?: number;
  finishTimeoutMs?: number;
  parentRunId?: string;
  /** Due this long after it is created (a delayed event); due at once when unset. */
  delayMs?: number;
};

export type TEventToEnqueue = { id: string; name: string; runs: TNewJobRun[] };

export type TEnqueueResult = {
  /** Runs created, in event order. */
  runIds: string[];
  /** Event ids seen within the last 24 hours: nothing was created for them. */
  duplicateEventIds: string[];
  /** Runs not created because a singleton run with the same key is in progress ("skip"). */
  skippedJobIds: string[];
  /** RUNNING runs asked to stop by a singleton "cancel"; their workers are told after commit. */
  cancelRequested: string[];
  /**
   * Whether a created run is due at once. Runs of delayed events are not: runners are not woken
   * for them (no NOTIFY, no claim that finds nothing), and polling starts them once due.
   */
  dueNow?: boolean;
};

function runRows(runs: readonly TNewJobRun[]): string {
  return JSON.stringify(
    runs.map((run) => ({
      id: run.id,
      jobId: run.jobId,
      trigger: run.trigger,
      eventName: run.eventName,
      eventId: run.eventId,
      data: run.data ?? {},
      maxAttempts: run.maxAttempts,
      concurrencyKey: run.concurrencyKey ?? null,
      concurrencyLimit: run.concurrencyLimit ?? null,
      singletonKey: run.singletonKey ?? null,
      startTimeoutMs: run.startTimeoutMs ?? null,
      finishTimeoutMs: run.finishTimeoutMs ?? null,
      parentRunId: run.parentRunId ?? null,
      delayMs: run.delayMs ?? null,
    })),
  );
}

const INSERT_RUN_COLUMNS = Prisma.raw(`"id", "jobId", "status", "trigger", "eventName", "eventId", "data", "attempt", "maxAttempts", "runAt",
  "concurrencyKey", "concurrencyLimit", "singletonKey", "parentRunId", "startDeadline", "finishTimeoutMs", "createdAt", "updatedAt"`);

/** The SELECT list that turns a recordset `x` of runRows() into job_runs columns. */
function runValues(): Prisma.Sql {
  const runAt = Prisma.sql`(${NOW} + (COALESCE(x."delayMs", 0) * interval '1 millisecond'))`;
  return Prisma.sql`x."id", x."jobId", 'QUEUED', x."trigger", x."eventName", x."eventId", x."data", 0, x."maxAttempts", ${runAt},
    x."concurrencyKey", x."concurrencyLimit", x."singletonKey", x."parentRunId",
    CASE WHEN x."startTimeoutMs" IS NULL THEN NULL ELSE ${runAt} + (x."startTimeoutMs" * interval '1 millisecond') END,
    x."finishTimeoutMs", ${NOW}, ${NOW}`;
}

function runRecordset(json: string): Prisma.Sql {
  return Prisma.sql`jsonb_to_recordset(${json}::jsonb) AS x(
    "id" uuid, "jobId" text, "trigger" text, "eventName" text, "eventId" text, "data" jsonb, "maxAttempts" int,
    "concurrencyKey" text, "concurrencyLimit" int, "singletonKey" text, "startTimeoutMs" double precision,
    "finishTimeoutMs" int, "parentRunId" uuid, "delayMs" double precision)`;
}

export async function insertJobRuns(tx: TClient, runs: readonly TNewJobRun[]): Promise<void> {
  if (!runs.length) return;
  await tx.$executeRaw`INSERT INTO "job_runs" (${INSERT_RUN_COLUMNS}) SELECT ${runValues()} FROM ${runRecordset(runRows(runs))}`;
}

/**
 * Records events (ignoring ids seen in the last 24 hours, atomically: the upsert takes the row
 * lock) and creates their runs, in the caller's transaction.
 */
export async function enqueueEventsInTransaction(tx: TClient, events: readonly TEventToEnqueue[]): Promise<TEnqueueResult> {
  const result: TEnqueueResult = { runIds: [], duplicateEventIds: [], skippedJobIds: [], cancelRequested: [] };
  const unique = [...new Map(events.map((event) => [event.id, event])).values()];
  if (!unique.length) return result;
  const fresh = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO "job_events" ("id", "name", "receivedAt")
    SELECT x."id", x."name", ${NOW} FROM jsonb_to_recordset(${JSON.stringify(unique.map(({ id, name }) => ({ id, name })))}::jsonb) AS x("id" text, "name" text)
    ON CONFLICT ("id") DO UPDATE SET "name" = EXCLUDED."name", "receivedAt" = EXCLUDED."receivedAt"
    WHERE "job_events"."receivedAt" < ${NOW} - interval '24 hours'
    RETURNING "id"`;
  const freshIds = new Set(fresh.map((row) => row.id));
  const duplicates = new Set(events.filter((event) => !freshIds.has(event.id)).map((event) => event.id));
  result.duplicateEventIds = [...duplicates];
  let runs = unique.filter((event) => freshIds.has(event.id)).flatMap((event) => event.runs);

  const singletons = runs.filter((run) => run.singletonKey && run.singletonMode);
  if (singletons.length) {
    const keys = singletons.map((run) => run.singletonKey!);
    await lockKeys(tx, keys.map((key) => `s:${key}`));
    const active = await tx.$queryRaw<{ id: string; status: string; singletonKey: string }[]>`
      SELECT "id", "status"::text AS "status", "singletonKey" FROM "job_runs"
      WHERE "singletonKey" IN ${textList(keys)} AND "status" IN ('QUEUED', 'RUNNING', 'SLEEPING')`;
    const inProgress = new Map<string, { id: string; status: string; batch: boolean }[]>();
    for (const row of active) inProgress.set(row.singletonKey, [...(inProgress.get(row.singletonKey) ?? []), { ...row, batch: false }]);
    const accepted: TNewJobRun[] = [];
    const dropped = new Set<string>();
    const cancelNow: string[] = [];
    for (const run of runs) {
      if (!run.singletonKey || !run.singletonMode) {
        accepted.push(run);
        continue;
      }
      const current = inProgress.get(run.singletonKey) ?? [];
      if (current.length && run.singletonMode === "skip") {
        result.skippedJobIds.push(run.jobId);
        continue;
      }
      for (const other of current) {
        if (other.batch) dropped.add(other.id);
        else if (other.status === "RUNNING") result.cancelRequested.push(other.id);
        else cancelNow.push(other.id);
      }
      inProgress.set(run.singletonKey, [{ id: run.id, status: "QUEUED", batch: true }]);
      accepted.push(run);
    }
    runs = accepted.filter((run) => !dropped.has(run.id));
    const reason = "Cancelled: a newer run of this singleton job replaced it.";
    if (cancelNow.length) {
      await tx.$executeRaw`
        UPDATE "job_runs" SET "status" = 'CANCELLED', "error" = ${reason}, "endedAt" = ${NOW}, "updatedAt" = ${NOW}
        WHERE "id" IN ${uuidList(cancelNow)} AND "status" IN ('QUEUED', 'SLEEPING')`;
    }
    if (result.cancelRequested.length) {
      await tx.$executeRaw`
        UPDATE "job_runs" SET "cancelRequested" = true, "error" = ${reason}, "updatedAt" = ${NOW}
        WHERE "id" IN ${uuidList(result.cancelRequested)} AND "status" = 'RUNNING'`;
    }
  }
  await insertJobRuns(tx, runs);
  result.runIds = runs.map((run) => run.id);
  result.dueNow = runs.some(isDueNow);
  if (result.dueNow || result.cancelRequested.length) await notify(tx, result.cancelRequested);
  return result;
}

/** NOTIFY is delivered at commit, so listeners never look before the rows are visible. */
export async function notifyWork(tx: TClient): Promise<void> {
  await notify(tx);
}

function isDueNow(run: TNewJobRun): boolean {
  return !run.delayMs;
}

/** After a commit: wake the runners of this process (other processes got the NOTIFY). */
export function announceEnqueued(result: Pick<TEnqueueResult, "runIds" | "cancelRequested" | "dueNow">): void {
  if (result.runIds.length && result.dueNow !== false) announceWork();
  for (const id of result.cancelRequested) announceCancel(id);
}

export async function enqueueEvents(events: readonly TEventToEnqueue[]): Promise<TEnqueueResult> {
  const needsDecisions = events.some((event) => event.runs.some((run) => run.singletonKey && run.singletonMode));
  const result = needsDecisions ? await db().$transaction((tx) => enqueueEventsInTransaction(tx, events)) : await enqueuePlainEvents(events);
  announceEnqueued(result);
  return result;
}

/**
 * The common case (no singleton to decide about) in one statement, which is atomic on its own:
 * record the event ids, create the runs of the fresh ones, notify. Sending is on the path to a
 * job's first step, and on the embedded database every round trip counts.
 */
async function enqueuePlainEvents(events: readonly TEventToEnqueue[]): Promise<TEnqueueResult> {
  const unique = [...new Map(events.map((event) => [event.id, event])).values()];
  const runs = unique.flatMap((event) => event.runs);
  const dueNow = runs.some(isDueNow);
  const rows = await db().$queryRaw<{ fresh: string[] | null; created: number }[]>`
    WITH fresh AS (
      INSERT INTO "job_events" ("id", "name", "receivedAt")
      SELECT e."id", e."name", ${NOW} FROM jsonb_to_recordset(${JSON.stringify(unique.map(({ id, name }) => ({ id, name })))}::jsonb) AS e("id" text, "name" text)
      ON CONFLICT ("id") DO UPDATE SET "name" = EXCLUDED."name", "receivedAt" = EXCLUDED."receivedAt"
      WHERE "job_events"."receivedAt" < ${NOW} - interval '24 hours'
      RETURNING "id"
    ), created AS (
      INSERT INTO "job_runs" (${INSERT_RUN_COLUMNS})
      SELECT ${runValues()} FROM ${runRecordset(runRows(runs))} WHERE x."eventId" IN (SELECT "id" FROM fresh)
      RETURNING "id"
    ), sent AS (
      SELECT pg_notify(${JOBS_CHANNEL}, 'work') FROM created WHERE ${dueNow} LIMIT 1
    )
    SELECT (SELECT array_agg("id") FROM fresh) AS "fresh", (SELECT count(*)::int FROM created) + (SELECT count(*)::int * 0 FROM sent) AS "created"`;
  const fresh = new Set(rows[0]?.fresh ?? []);
  return {
    runIds: unique.filter((event) => fresh.has(event.id)).flatMap((event) => event.runs.map((run) => run.id)),
    duplicateEventIds: events.filter((event) => !fresh.has(event.id)).map((event) => event.id),
    skippedJobIds: [],
    cancelRequested: [],
    dueNow,
  };
}

export function newJobRunId(): string {
  return randomUUID();
}
