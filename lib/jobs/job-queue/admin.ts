import { db } from "@/lib/db/client";
import { announceCancel, announceWork } from "@/lib/jobs/wake-bus";
import { notify, NOW } from "./queue-sql";

/**
 * Cancels a run: a waiting one ends at once; a RUNNING one gets cancelRequested, and its worker
 * (told through NOTIFY or the bus, else at its next heartbeat) aborts the handler and ends it.
 * Returns the new status, or undefined when the run is already finished or does not exist.
 */
export async function requestJobCancel(runId: string, reason: string): Promise<string | undefined> {
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
export async function requeueJobRun(runId: string): Promise<boolean> {
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
