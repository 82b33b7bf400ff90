import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { announceWork, JOBS_CHANNEL } from "@/lib/jobs/wake-bus";
import { afterMs, NOW, timestamp } from "./queue-sql";

/** How an execution of a job run ends (fenced by its lease), and the sweep of runs past their timeouts. */
export type TJobRunOutcome =
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
export async function finishJobRun(owner: string, runId: string, outcome: TJobRunOutcome): Promise<{ applied: boolean; parentWoken: boolean }> {
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
export async function sweepJobRuns(): Promise<number> {
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
