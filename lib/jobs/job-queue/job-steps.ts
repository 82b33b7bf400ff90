import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { NOW, timestamp, type TClient } from "./queue-sql";

/** A job run's memoized steps, written only while the writer still holds the run's lease. */
export type TStoredJobStep = {
  stepId: string;
  kind: string;
  status: "COMPLETED" | "FAILED" | "SLEEPING" | "WAITING";
  output: { value: unknown } | null;
  error: string | null;
  wakeAt: Date | null;
  childRunId: string | null;
};

export type TJobStepWrite = {
  runId: string;
  stepId: string;
  kind: "run" | "sleep" | "send-event" | "invoke";
  status: TStoredJobStep["status"];
  /** JSON text of `{ value }`. */
  outputJson?: string;
  error?: string;
  wakeAt?: Date;
  childRunId?: string;
  startedAt: Date;
};

/** Writes (or updates) a step if `owner` still holds the run; false when the lease was lost. */
export async function saveJobStep(owner: string, step: TJobStepWrite, client: TClient = db()): Promise<boolean> {
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

export async function readJobRunResult(runId: string): Promise<{ status: string; output: unknown; error: string | null; jobId: string } | undefined> {
  const run = await db().jobRun.findUnique({ where: { id: runId }, select: { status: true, output: true, error: true, jobId: true } });
  return run ?? undefined;
}
