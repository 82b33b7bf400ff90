import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { afterMs, NOW, textList, tryLockKeys, uuidList } from "./queue-sql";
import type { TStoredJobStep } from "./job-steps";

/**
 * Taking work off the queue: due job runs claimed with a lease (FOR UPDATE SKIP LOCKED, keyed runs
 * admitted under their keys' locks), and the heartbeat that renews the leases.
 */
export type TClaimedJobRun = {
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
  steps: TStoredJobStep[];
};

type TClaimRow = Omit<TClaimedJobRun, "takenOver" | "steps"> & {
  previousStatus: string;
  steps: (Omit<TStoredJobStep, "wakeAt"> & { wakeAt: string | null })[];
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

function toClaimed(rows: TClaimRow[]): TClaimedJobRun[] {
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
export async function claimJobRuns(
  owner: string,
  limit: number,
  leaseMs: number,
  options: { keyedFirst?: boolean } = {},
): Promise<{ runs: TClaimedJobRun[]; keyedCrowdedOut: boolean }> {
  if (limit <= 0) return { runs: [], keyedCrowdedOut: false };
  const keyedFirst = options.keyedFirst ? await claimKeyedRuns(owner, limit, leaseMs) : [];
  const plain = await claimPlainRuns(owner, limit - keyedFirst.length, leaseMs);
  const room = limit - keyedFirst.length - plain.runs.length;
  const keyed = !options.keyedFirst && plain.keyedDue && room > 0 ? await claimKeyedRuns(owner, room, leaseMs) : [];
  return { runs: [...keyedFirst, ...plain.runs, ...keyed], keyedCrowdedOut: plain.keyedDue && !options.keyedFirst && room <= 0 };
}

async function claimPlainRuns(owner: string, limit: number, leaseMs: number): Promise<{ runs: TClaimedJobRun[]; keyedDue: boolean }> {
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

async function claimKeyedRuns(owner: string, limit: number, leaseMs: number): Promise<TClaimedJobRun[]> {
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

export type TJobLeaseHeartbeat = { id: string; cancelRequested: boolean; error: string | null; timedOut: boolean; finishTimeoutMs: number | null };

/** Extends this worker's leases; returns what each run's row says (cancel requests, timeouts). */
export async function renewJobLeases(owner: string, leaseMs: number): Promise<TJobLeaseHeartbeat[]> {
  return db().$queryRaw<TJobLeaseHeartbeat[]>`
    UPDATE "job_runs" SET "leaseExpiresAt" = ${afterMs(leaseMs)}
    WHERE "leaseOwner" = ${owner} AND "status" = 'RUNNING'
    RETURNING "id", "cancelRequested", "error", ("finishDeadline" IS NOT NULL AND "finishDeadline" < ${NOW}) AS "timedOut", "finishTimeoutMs"`;
}
