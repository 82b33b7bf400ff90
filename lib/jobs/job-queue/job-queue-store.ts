import { randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { announceCancel, announceWork, JOBS_CHANNEL } from "@/lib/jobs/wake-bus";

/**
 * The embedded runner's queue, in SQL. A job run is one row that is at once the queue entry, the
 * lease and the result; memoized steps are rows of job_steps. Every statement is short: a worker
 * holds no connection (and no transaction) while a handler runs.
 *
 * - Claiming takes due rows with FOR UPDATE SKIP LOCKED, so concurrent workers never get the same
 *   run. Runs with a concurrency or singleton key are admitted under a transaction-scoped advisory
 *   lock per key, taken in sorted order, and counted again after the lock: two workers cannot
 *   both see "one slot left" for the same key. (On PGlite all connections share one session and
 *   the socket server runs one transaction at a time, so the lock is trivially held.)
 * - Every write a worker makes about a run it executes is fenced by `leaseOwner`: once its lease
 *   has expired and another worker took the run over, the old worker's writes match no row and
 *   it stops.
 * - Times come from the database clock (UTC, the way Prisma stores `timestamp` columns), so
 *   processes on different machines agree on leases and due times.
 */
const NOW = Prisma.raw(`(now() AT TIME ZONE 'utc')`);

function afterMs(ms: number): Prisma.Sql {
  return Prisma.sql`(${NOW} + (${ms}::double precision * interval '1 millisecond'))`;
}

/** A UTC instant as a `timestamp` literal (the zone suffix is dropped, the UTC wall time kept). */
function timestamp(date: Date | null | undefined): Prisma.Sql {
  return date ? Prisma.sql`${date.toISOString()}::timestamp` : Prisma.sql`NULL::timestamp`;
}

function uuidList(ids: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}

function textList(values: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

type TClient = Prisma.TransactionClient;

/** The advisory lock's name for a key: lockKeys and tryLockKeys must lock the same names. */
const lockName = (key: string) => `xclaw-jobs:${key}`;

async function lockKeys(tx: TClient, keys: Iterable<string>): Promise<void> {
  // Sorted, so two transactions that need the same keys take them in the same order (no deadlock),
  // and all in one statement: a batch of events (memory's extraction signals) locks many keys.
  const sorted = [...new Set(keys)].sort().map(lockName);
  if (!sorted.length) return;
  await tx.$queryRaw`
    SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0)))::int AS locked
    FROM (SELECT k FROM jsonb_array_elements_text(${JSON.stringify(sorted)}::jsonb) WITH ORDINALITY AS t(k, n) ORDER BY n) AS ordered`;
}

/**
 * For a transaction that already holds row locks (a claim): takes what it can of the keys' locks
 * without waiting, and says which it got. Waiting here could deadlock with an enqueue, which holds
 * a key's lock while it updates that key's rows; a run whose key is busy is claimed on a later pass.
 */
async function tryLockKeys(tx: TClient, keys: Iterable<string>): Promise<Set<string>> {
  const unique = [...new Set(keys)];
  if (!unique.length) return new Set();
  const rows = await tx.$queryRaw<{ key: string }[]>`
    SELECT t."key" FROM jsonb_to_recordset(${JSON.stringify(unique.map((key) => ({ key, name: lockName(key) })))}::jsonb) AS t("key" text, "name" text)
    WHERE pg_try_advisory_xact_lock(hashtextextended(t."name", 0))`;
  return new Set(rows.map((row) => row.key));
}

// ---------------------------------------------------------------------------------------------
// Enqueueing

export type TNewRun = {
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

export type TEventToEnqueue = { id: string; name: string; runs: TNewRun[] };

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

function runRows(runs: readonly TNewRun[]): string {
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

export async function insertRuns(tx: TClient, runs: readonly TNewRun[]): Promise<void> {
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
    const accepted: TNewRun[] = [];
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
  await insertRuns(tx, runs);
  result.runIds = runs.map((run) => run.id);
  result.dueNow = runs.some(isDueNow);
  if (result.dueNow || result.cancelRequested.length) await notify(tx, result.cancelRequested);
  return result;
}

/** NOTIFY is delivered at commit, so listeners never look before the rows are visible. */
export async function notifyWork(tx: TClient): Promise<void> {
  await notify(tx);
}

async function notify(tx: TClient, cancelled: readonly string[] = []): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS sent FROM pg_notify(${JOBS_CHANNEL}, 'work')`;
  for (const id of cancelled) await tx.$queryRaw`SELECT 1 AS sent FROM pg_notify(${JOBS_CHANNEL}, ${`cancel:${id}`})`;
}

function isDueNow(run: TNewRun): boolean {
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

// ---------------------------------------------------------------------------------------------
// Claiming and leases

export type TClaimedRun = {
  id: string;
  jobId: string;
  eventName: string;
  eventId: string;
  data: unknown;
  attempt: number;
  maxAttempts: number;
  parentRunId: string | null;
  /** True when the run was taken over from a worker whose lease expired. */
  takenOver: boolean;
  /** The memoized steps, read in the claiming statement (no extra round trip per run). */
  steps: TStoredStep[];
};

type TClaimRow = Omit<TClaimedRun, "takenOver" | "steps"> & {
  previousStatus: string;
  steps: (Omit<TStoredStep, "wakeAt"> & { wakeAt: string | null })[];
};

/** Runs that may start now (keys aside): due, not cancelled, within their start and finish timeouts. */
const DUE = Prisma.sql`((r."status" IN ('QUEUED', 'SLEEPING') AND r."runAt" <= ${NOW}) OR (r."status" = 'RUNNING' AND r."leaseExpiresAt" < ${NOW}))
  AND NOT r."cancelRequested"
  AND (r."startDeadline" IS NULL OR r."startedAt" IS NOT NULL OR r."startDeadline" >= ${NOW})
  AND (r."finishDeadline" IS NULL OR r."finishDeadline" >= ${NOW})`;

/** Skips keyed runs whose key is visibly full, so they do not crowd out runnable work. */
const KEY_HAS_ROOM = Prisma.sql`(r."concurrencyKey" IS NULL OR (
    SELECT count(*) FROM "job_runs" o
    WHERE o."concurrencyKey" = r."concurrencyKey" AND o."status" = 'RUNNING' AND o."leaseExpiresAt" >= ${NOW}) < r."concurrencyLimit")
  AND (r."singletonKey" IS NULL OR NOT EXISTS (
    SELECT 1 FROM "job_runs" o
    WHERE o."singletonKey" = r."singletonKey" AND o."status" = 'RUNNING' AND o."leaseExpiresAt" >= ${NOW} AND o."id" <> r."id"))`;

function claimSet(owner: string, leaseMs: number): Prisma.Sql {
  return Prisma.sql`
    "status" = 'RUNNING', "leaseOwner" = ${owner}, "leaseExpiresAt" = ${afterMs(leaseMs)},
    "attempt" = CASE WHEN j."status" = 'RUNNING' THEN j."attempt" + 1 ELSE j."attempt" END,
    "error" = CASE WHEN j."status" = 'RUNNING' THEN 'The process running it stopped answering (crash, kill or a stalled event loop); another one took it over.' ELSE j."error" END,
    "startedAt" = COALESCE(j."startedAt", ${NOW}),
    "finishDeadline" = COALESCE(j."finishDeadline", CASE WHEN j."finishTimeoutMs" IS NULL THEN NULL ELSE ${NOW} + (j."finishTimeoutMs" * interval '1 millisecond') END),
    "updatedAt" = ${NOW}`;
}

const CLAIM_RETURNING = Prisma.sql`j."id", j."jobId", j."eventName", j."eventId", j."data", j."attempt", j."maxAttempts", j."parentRunId",
  (SELECT COALESCE(json_agg(json_build_object('stepId', s."stepId", 'kind', s."kind", 'status', s."status", 'output', s."output",
      'error', s."error", 'wakeAt', s."wakeAt", 'childRunId', s."childRunId")), '[]'::json)
   FROM "job_steps" s WHERE s."runId" = j."id") AS "steps"`;

function toClaimed(rows: TClaimRow[]): TClaimedRun[] {
  return rows.map(({ previousStatus, steps, ...run }) => ({
    ...run,
    takenOver: previousStatus === "RUNNING",
    // json_build_object renders a `timestamp` without its (UTC) zone.
    steps: steps.map((step) => ({ ...step, wakeAt: step.wakeAt ? new Date(`${step.wakeAt}Z`) : null })),
  }));
}

/**
 * Claims up to `limit` due runs for `owner`. Runs without keys are claimed in one statement; runs
 * with a concurrency or singleton key in a transaction that admits them under per-key locks.
 * `keyedFirst` serves keyed runs first (the runner sets it when they were crowded out last time).
 */
export async function claimRuns(
  owner: string,
  limit: number,
  leaseMs: number,
  options: { keyedFirst?: boolean } = {},
): Promise<{ runs: TClaimedRun[]; keyedCrowdedOut: boolean }> {
  if (limit <= 0) return { runs: [], keyedCrowdedOut: false };
  const keyedFirst = options.keyedFirst ? await claimKeyedRuns(owner, limit, leaseMs) : [];
  const plain = await claimPlainRuns(owner, limit - keyedFirst.length, leaseMs);
  const room = limit - keyedFirst.length - plain.runs.length;
  const keyed = !options.keyedFirst && plain.keyedDue && room > 0 ? await claimKeyedRuns(owner, room, leaseMs) : [];
  return { runs: [...keyedFirst, ...plain.runs, ...keyed], keyedCrowdedOut: plain.keyedDue && !options.keyedFirst && room <= 0 };
}

async function claimPlainRuns(owner: string, limit: number, leaseMs: number): Promise<{ runs: TClaimedRun[]; keyedDue: boolean }> {
  const rows = await db().$queryRaw<(TClaimRow & { keyedDue: boolean })[]>`
    WITH candidates AS (
      SELECT r."id", r."status"::text AS "previousStatus" FROM "job_runs" r
      WHERE ${DUE} AND r."concurrencyKey" IS NULL AND r."singletonKey" IS NULL
      ORDER BY r."runAt" LIMIT ${limit}
      FOR UPDATE OF r SKIP LOCKED
    ), claimed AS (
      UPDATE "job_runs" j SET ${claimSet(owner, leaseMs)} FROM candidates c WHERE j."id" = c."id"
      RETURNING ${CLAIM_RETURNING}, c."previousStatus"
    )
    SELECT claimed.*, flag."keyedDue"
    FROM (SELECT EXISTS (
      SELECT 1 FROM "job_runs" r WHERE ${DUE} AND (r."concurrencyKey" IS NOT NULL OR r."singletonKey" IS NOT NULL) AND ${KEY_HAS_ROOM}
    ) AS "keyedDue") flag
    LEFT JOIN claimed ON true`;
  const claimed = rows.filter((row) => row.id !== null);
  return { runs: toClaimed(claimed), keyedDue: rows[0]?.keyedDue ?? false };
}

type TCandidate = { id: string; status: string; concurrencyKey: string | null; concurrencyLimit: number | null; singletonKey: string | null };

async function claimKeyedRuns(owner: string, limit: number, leaseMs: number): Promise<TClaimedRun[]> {
  return db().$transaction(async (tx) => {
    const candidates = await tx.$queryRaw<TCandidate[]>`
      SELECT r."id", r."status"::text AS "status", r."concurrencyKey", r."concurrencyLimit", r."singletonKey"
      FROM "job_runs" r
      WHERE ${DUE} AND (r."concurrencyKey" IS NOT NULL OR r."singletonKey" IS NOT NULL) AND ${KEY_HAS_ROOM}
      ORDER BY r."runAt"
      LIMIT ${limit}
      FOR UPDATE OF r SKIP LOCKED`;
    if (!candidates.length) return [];
    // The prefilter above read a snapshot; the count under the key's lock is the one that decides.
    // The rows are locked already, so the keys' locks are only tried (tryLockKeys says why).
    const concurrencyKeys = candidates.flatMap((run) => (run.concurrencyKey ? [run.concurrencyKey] : []));
    const singletonKeys = candidates.flatMap((run) => (run.singletonKey ? [run.singletonKey] : []));
    const locked = await tryLockKeys(tx, [...concurrencyKeys.map((key) => `c:${key}`), ...singletonKeys.map((key) => `s:${key}`)]);
    const lockable = (run: TCandidate) => (!run.concurrencyKey || locked.has(`c:${run.concurrencyKey}`)) && (!run.singletonKey || locked.has(`s:${run.singletonKey}`));
    const candidateIds = candidates.map((run) => run.id);
    const running = await tx.$queryRaw<{ kind: string; key: string; count: number }[]>`
      SELECT 'c' AS "kind", "concurrencyKey" AS "key", count(*)::int AS "count" FROM "job_runs"
      WHERE "concurrencyKey" IN ${textList(concurrencyKeys)} AND "status" = 'RUNNING' AND "leaseExpiresAt" >= ${NOW}
        AND "id" NOT IN ${uuidList(candidateIds)}
      GROUP BY "concurrencyKey"
      UNION ALL
      SELECT 's', "singletonKey", count(*)::int FROM "job_runs"
      WHERE "singletonKey" IN ${textList(singletonKeys)} AND "status" = 'RUNNING' AND "leaseExpiresAt" >= ${NOW}
        AND "id" NOT IN ${uuidList(candidateIds)}
      GROUP BY "singletonKey"`;
    const counts = new Map(running.map((row) => [`${row.kind}:${row.key}`, row.count]));
    const admitted: TCandidate[] = [];
    for (const run of candidates) {
      if (!lockable(run)) continue;
      const concurrency = run.concurrencyKey ? `c:${run.concurrencyKey}` : undefined;
      const singleton = run.singletonKey ? `s:${run.singletonKey}` : undefined;
      if (concurrency && (counts.get(concurrency) ?? 0) >= (run.concurrencyLimit ?? 1)) continue;
      if (singleton && (counts.get(singleton) ?? 0) >= 1) continue;
      if (concurrency) counts.set(concurrency, (counts.get(concurrency) ?? 0) + 1);
      if (singleton) counts.set(singleton, (counts.get(singleton) ?? 0) + 1);
      admitted.push(run);
    }
    if (!admitted.length) return [];
    const previous = new Map(admitted.map((run) => [run.id, run.status]));
    const rows = await tx.$queryRaw<Omit<TClaimRow, "previousStatus">[]>`
      UPDATE "job_runs" j SET ${claimSet(owner, leaseMs)}
      WHERE j."id" IN ${uuidList(admitted.map((run) => run.id))}
      RETURNING ${CLAIM_RETURNING}`;
    const order = new Map(admitted.map((run, index) => [run.id, index]));
    return toClaimed(rows.map((row) => ({ ...row, previousStatus: previous.get(row.id)! }))).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  });
}

export type THeartbeat = { id: string; cancelRequested: boolean; error: string | null; timedOut: boolean; finishTimeoutMs: number | null };

/** Extends this worker's leases; returns what each run's row says (cancel requests, timeouts). */
export async function renewLeases(owner: string, leaseMs: number): Promise<THeartbeat[]> {
  return db().$queryRaw<THeartbeat[]>`
    UPDATE "job_runs" SET "leaseExpiresAt" = ${afterMs(leaseMs)}
    WHERE "leaseOwner" = ${owner} AND "status" = 'RUNNING'
    RETURNING "id", "cancelRequested", "error", ("finishDeadline" IS NOT NULL AND "finishDeadline" < ${NOW}) AS "timedOut", "finishTimeoutMs"`;
}

// ---------------------------------------------------------------------------------------------
// Steps

export type TStoredStep = {
  stepId: string;
  kind: string;
  status: "COMPLETED" | "FAILED" | "SLEEPING" | "WAITING";
  output: { value: unknown } | null;
  error: string | null;
  wakeAt: Date | null;
  childRunId: string | null;
};

export type TStepWrite = {
  runId: string;
  stepId: string;
  kind: "run" | "sleep" | "send-event" | "invoke";
  status: TStoredStep["status"];
  /** JSON text of `{ value }`. */
  outputJson?: string;
  error?: string;
  wakeAt?: Date;
  childRunId?: string;
  startedAt: Date;
};

/** Writes (or updates) a step if `owner` still holds the run; false when the lease was lost. */
export async function saveStep(owner: string, step: TStepWrite, client: TClient = db()): Promise<boolean> {
  const ended = step.status === "COMPLETED" || step.status === "FAILED";
  const rows = await client.$queryRaw<{ id: string }[]>`
    INSERT INTO "job_steps" ("id", "runId", "stepId", "kind", "status", "output", "error", "wakeAt", "childRunId", "attempt", "startedAt", "endedAt")
    SELECT gen_random_uuid(), r."id", ${step.stepId}, ${step.kind}, ${step.status}::"JobStepStatus", ${step.outputJson ?? null}::jsonb,
           ${step.error ?? null}, ${timestamp(step.wakeAt)}, ${step.childRunId ?? null}::uuid, r."attempt", ${timestamp(step.startedAt)},
           ${ended ? NOW : Prisma.sql`NULL::timestamp`}
    FROM "job_runs" r
    WHERE r."id" = ${step.runId}::uuid AND r."leaseOwner" = ${owner} AND r."status" = 'RUNNING'
    ON CONFLICT ("runId", "stepId") DO UPDATE SET
      "status" = EXCLUDED."status", "output" = EXCLUDED."output", "error" = EXCLUDED."error", "wakeAt" = EXCLUDED."wakeAt",
      "childRunId" = COALESCE(EXCLUDED."childRunId", "job_steps"."childRunId"), "attempt" = EXCLUDED."attempt", "endedAt" = EXCLUDED."endedAt"
    RETURNING "id"`;
  return rows.length > 0;
}

export async function readRunResult(runId: string): Promise<{ status: string; output: unknown; error: string | null; jobId: string } | undefined> {
  const run = await db().jobRun.findUnique({ where: { id: runId }, select: { status: true, output: true, error: true, jobId: true } });
  return run ?? undefined;
}

// ---------------------------------------------------------------------------------------------
// Finishing an execution

export type TRunOutcome =
  | { kind: "completed"; outputJson: string }
  | { kind: "failed"; error: string }
  | { kind: "cancelled"; error: string }
  | { kind: "retry"; error: string; delayMs: number }
  | { kind: "park"; wakeAt: Date }
  | { kind: "release" };

/**
 * Ends one execution of a run, fenced by the lease. A non-final outcome (retry, park, release) of
 * a run that was asked to cancel meanwhile ends it CANCELLED instead, so a cancel that races with
 * a sleep is not lost. A final outcome wakes a parent waiting in step.invoke.
 */
export async function finishExecution(owner: string, runId: string, outcome: TRunOutcome): Promise<{ applied: boolean; parentWoken: boolean }> {
  const final = outcome.kind === "completed" || outcome.kind === "failed" || outcome.kind === "cancelled";
  const status = { completed: "COMPLETED", failed: "FAILED", cancelled: "CANCELLED", retry: "QUEUED", park: "SLEEPING", release: "QUEUED" }[outcome.kind];
  // A run parks to wait for an invoked child; if the child already finished (it can run and end
  // before the parent has parked, when its completion found the parent still RUNNING and woke no
  // one), the parent is due at once instead of at the invoke timeout.
  const runAt =
    outcome.kind === "retry"
      ? afterMs(outcome.delayMs)
      : outcome.kind === "park"
        ? Prisma.sql`CASE WHEN EXISTS (
            SELECT 1 FROM "job_steps" s JOIN "job_runs" c ON c."id" = s."childRunId"
            WHERE s."runId" = ${runId}::uuid AND s."kind" = 'invoke' AND s."status" = 'WAITING' AND c."status" IN ('COMPLETED', 'FAILED', 'CANCELLED')
          ) THEN ${NOW} ELSE ${timestamp(outcome.wakeAt)} END`
        : Prisma.sql`${NOW}`;
  const error = outcome.kind === "failed" || outcome.kind === "cancelled" || outcome.kind === "retry" ? outcome.error : null;
  const outputJson = outcome.kind === "completed" ? outcome.outputJson : null;
  const rows = await db().$queryRaw<{ done: number; woke: number }[]>`
    WITH done AS (
      UPDATE "job_runs" SET
        "status" = CASE WHEN ${!final} AND "cancelRequested" THEN 'CANCELLED' ELSE ${status}::"JobRunStatus" END,
        "error" = CASE WHEN ${!final} AND "cancelRequested" THEN COALESCE("error", 'Cancelled.')
                       WHEN ${outcome.kind === "park" || outcome.kind === "release"} THEN "error" ELSE ${error} END,
        "output" = ${outputJson}::jsonb,
        "attempt" = "attempt" + ${outcome.kind === "retry" ? 1 : 0},
        "runAt" = ${runAt},
        "endedAt" = CASE WHEN ${final} OR "cancelRequested" THEN ${NOW} ELSE NULL END,
        "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${NOW}
      WHERE "id" = ${runId}::uuid AND "leaseOwner" = ${owner} AND "status" = 'RUNNING'
      RETURNING "parentRunId", "status", ("concurrencyKey" IS NOT NULL OR "singletonKey" IS NOT NULL) AS "keyed"
    ), woke AS (
      UPDATE "job_runs" p SET "runAt" = ${NOW}, "updatedAt" = ${NOW}
      FROM done WHERE p."id" = done."parentRunId" AND done."status" IN ('COMPLETED', 'FAILED', 'CANCELLED') AND p."status" = 'SLEEPING'
      RETURNING p."id"
    ), sent AS (
      -- A woken parent, or a freed concurrency/singleton slot that runs in other processes may be
      -- waiting for: tell every runner, not only this one.
      SELECT pg_notify(${JOBS_CHANNEL}, 'work') FROM (SELECT 1 FROM woke UNION ALL SELECT 1 FROM done WHERE done."keyed") AS due LIMIT 1
    )
    SELECT (SELECT count(*)::int FROM done) AS "done", (SELECT count(*)::int FROM woke) + (SELECT count(*)::int * 0 FROM sent) AS "woke"`;
  const row = rows[0] ?? { done: 0, woke: 0 };
  if (row.woke) announceWork();
  return { applied: row.done > 0, parentWoken: row.woke > 0 };
}

/**
 * Housekeeping any runner does now and then: runs past timeouts.start or timeouts.finish, and
 * runs asked to cancel whose worker died, end CANCELLED (waking invoking parents).
 */
export async function sweepRuns(): Promise<number> {
  const rows = await db().$queryRaw<{ swept: number }[]>`
    WITH swept AS (
      UPDATE "job_runs" SET "status" = 'CANCELLED', "endedAt" = ${NOW}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${NOW},
        "error" = CASE
          WHEN "cancelRequested" THEN COALESCE("error", 'Cancelled.')
          WHEN "startedAt" IS NULL AND "startDeadline" < ${NOW}
            THEN 'Cancelled: it did not start within ' || round(extract(epoch FROM ("startDeadline" - "createdAt")))::text || ' s (timeouts.start).'
          ELSE 'Cancelled: it did not finish within ' || round("finishTimeoutMs" / 1000.0)::text || ' s (timeouts.finish).' END
      WHERE ("status" = 'RUNNING' AND "leaseExpiresAt" < ${NOW} AND ("cancelRequested" OR "finishDeadline" < ${NOW}))
         OR ("status" = 'QUEUED' AND "startedAt" IS NULL AND "startDeadline" < ${NOW})
         OR ("status" IN ('QUEUED', 'SLEEPING') AND "finishDeadline" < ${NOW})
      RETURNING "parentRunId"
    ), woke AS (
      UPDATE "job_runs" p SET "runAt" = ${NOW}, "updatedAt" = ${NOW}
      FROM swept WHERE p."id" = swept."parentRunId" AND p."status" = 'SLEEPING'
      RETURNING p."id"
    ), missed AS (
      -- A parent and its child that finished at the same instant can each miss the other's update
      -- (READ COMMITTED): parked parents whose invoked child is already final are due now.
      UPDATE "job_runs" p SET "runAt" = ${NOW}, "updatedAt" = ${NOW}
      WHERE p."status" = 'SLEEPING' AND p."runAt" > ${NOW} AND EXISTS (
        SELECT 1 FROM "job_steps" s JOIN "job_runs" c ON c."id" = s."childRunId"
        WHERE s."runId" = p."id" AND s."kind" = 'invoke' AND s."status" = 'WAITING' AND c."status" IN ('COMPLETED', 'FAILED', 'CANCELLED'))
      RETURNING p."id"
    )
    SELECT (SELECT count(*)::int FROM swept) + (SELECT count(*)::int FROM missed) + (SELECT count(*)::int * 0 FROM woke) AS "swept"`;
  return rows[0]?.swept ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Administration

/**
 * Cancels a run: a waiting one ends at once; a RUNNING one gets cancelRequested, and its worker
 * (told through NOTIFY or the bus, else at its next heartbeat) aborts the handler and ends it.
 * Returns the new status, or undefined when the run is already finished or does not exist.
 */
export async function requestCancel(runId: string, reason: string): Promise<string | undefined> {
  const rows = await db().$transaction(async (tx) => {
    const updated = await tx.$queryRaw<{ status: string; parentRunId: string | null }[]>`
      UPDATE "job_runs" SET
        "cancelRequested" = ("status" = 'RUNNING'),
        "status" = CASE WHEN "status" = 'RUNNING' THEN 'RUNNING'::"JobRunStatus" ELSE 'CANCELLED'::"JobRunStatus" END,
        "endedAt" = CASE WHEN "status" = 'RUNNING' THEN NULL ELSE ${NOW} END,
        "error" = ${reason}, "updatedAt" = ${NOW}
      WHERE "id" = ${runId}::uuid AND "status" IN ('QUEUED', 'SLEEPING', 'RUNNING')
      RETURNING "status"::text AS "status", "parentRunId"`;
    const row = updated[0];
    if (row?.status === "RUNNING") await notify(tx, [runId]);
    if (row?.status === "CANCELLED" && row.parentRunId) {
      await tx.$executeRaw`UPDATE "job_runs" SET "runAt" = ${NOW}, "updatedAt" = ${NOW} WHERE "id" = ${row.parentRunId}::uuid AND "status" = 'SLEEPING'`;
      await notify(tx);
    }
    return updated;
  });
  const status = rows[0]?.status;
  if (status === "RUNNING") announceCancel(runId);
  if (status === "CANCELLED" && rows[0]?.parentRunId) announceWork();
  return status;
}

/**
 * Queues a failed or cancelled run again with a fresh set of attempts. Completed steps stay
 * memoized, so it resumes after the last one; failed steps, and invocations whose child failed,
 * run again.
 */
export async function requeueRun(runId: string): Promise<boolean> {
  const requeued = await db().$transaction(async (tx) => {
    const count = await tx.$executeRaw`
      UPDATE "job_runs" SET "status" = 'QUEUED', "attempt" = 0, "runAt" = ${NOW}, "error" = NULL, "output" = NULL, "endedAt" = NULL,
        "startedAt" = NULL, "startDeadline" = NULL, "finishDeadline" = NULL, "cancelRequested" = false, "updatedAt" = ${NOW}
      WHERE "id" = ${runId}::uuid AND "status" IN ('FAILED', 'CANCELLED')`;
    if (!count) return false;
    await tx.$executeRaw`
      DELETE FROM "job_steps" s WHERE s."runId" = ${runId}::uuid AND (s."status" = 'FAILED' OR (s."status" = 'WAITING' AND EXISTS (
        SELECT 1 FROM "job_runs" c WHERE c."id" = s."childRunId" AND c."status" IN ('FAILED', 'CANCELLED'))))`;
    await notify(tx);
    return true;
  });
  if (requeued) announceWork();
  return requeued;
}

export function newRunId(): string {
  return randomUUID();
}
