import { z } from "zod";
import { db } from "@/lib/db/client";
import { Prisma, type ChronosExecution, type ChronosExecutionStatus, type ChronosExecutionTrigger } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import type { TChronosExecutionStatus, TChronosExecutionTrigger, TChronosExecutionView } from "@/lib/wire/chronos";

/**
 * Executions: one row per run of a scheduled job (or per triage of a webhook delivery).
 *
 * Exactly once per (job, scheduled time): the row is inserted under a unique (jobId,
 * scheduledFor), so however many schedulers and processes see the same slot, one insert wins.
 *
 * Overlap → skipped (the seeds' `isExecuting`, across processes): an execution must take the job
 * (`runningExecutionId`) with one conditional UPDATE before it may run; while another execution
 * holds it, a new one is recorded as SKIPPED. The hold ends when the execution ends. An execution
 * cannot outlive its time limit, so a hold older than that plus a margin was left by a crash and
 * may be taken over (and the stale execution is closed as FAILED by recoverStaleExecutions).
 */
export const FINAL_STATUSES: ChronosExecutionStatus[] = ["SILENT", "NOTIFIED", "SKIPPED", "FAILED", "TIMEOUT"];

/** Time an execution may wait in the queue and run (beyond its own time limit) before its hold counts as left behind. */
export const STALE_MARGIN_MS = 15 * 60_000;

const TRIGGER_NAMES: Record<ChronosExecutionTrigger, TChronosExecutionTrigger> = { SCHEDULE: "schedule", CATCH_UP: "catch-up", MANUAL: "manual", WEBHOOK: "webhook" };

export function toExecutionView(row: ChronosExecution): TChronosExecutionView {
  return {
    id: row.id,
    jobId: row.jobId,
    trigger: TRIGGER_NAMES[row.trigger],
    scheduledFor: row.scheduledFor?.toISOString() ?? null,
    status: row.status.toLowerCase() as TChronosExecutionStatus,
    statusReason: row.statusReason,
    sessionId: row.sessionId,
    notifications: row.notifications,
    startedAt: row.startedAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export type TBeginResult =
  | { outcome: "queued"; execution: ChronosExecution }
  | { outcome: "skipped"; execution: ChronosExecution }
  | { outcome: "duplicate"; execution: ChronosExecution }
  | { outcome: "busy" };

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/**
 * Creates the execution of a job for a slot (or for "run now", with no slot) and tries to take the
 * job. `duplicate`: this slot already has its execution. `skipped`: another execution holds the
 * job, recorded with the reason. `busy` (with `onBusy: "refuse"`, for "run now"): the same, but
 * nothing is recorded: a person is told instead.
 */
export async function beginJobExecution(options: {
  job: { id: string; userId: string; timeoutSeconds: number };
  trigger: Exclude<ChronosExecutionTrigger, "WEBHOOK">;
  scheduledFor: Date | null;
  note?: string;
  onBusy?: "skip" | "refuse";
  now?: Date;
}): Promise<TBeginResult> {
  const { job } = options;
  const now = options.now ?? new Date();
  let execution: ChronosExecution;
  try {
    execution = await db().chronosExecution.create({
      data: { userId: job.userId, jobId: job.id, trigger: options.trigger, scheduledFor: options.scheduledFor, status: "QUEUED", statusReason: options.note ?? null, createdAt: now },
    });
  } catch (error) {
    if (!isUniqueViolation(error) || !options.scheduledFor) throw error;
    const existing = await db().chronosExecution.findFirstOrThrow({ where: { jobId: job.id, scheduledFor: options.scheduledFor } });
    return { outcome: "duplicate", execution: existing };
  }
  const staleBefore = new Date(now.getTime() - job.timeoutSeconds * 1000 - STALE_MARGIN_MS);
  const taken = await db().chronosJob.updateMany({
    where: { id: job.id, userId: job.userId, OR: [{ runningExecutionId: null }, { runningSince: { lt: staleBefore } }] },
    data: { runningExecutionId: execution.id, runningSince: now },
  });
  if (taken.count) return { outcome: "queued", execution };
  if (options.onBusy === "refuse") {
    await db().chronosExecution.delete({ where: { id: execution.id } });
    return { outcome: "busy" };
  }
  const holder = await db().chronosJob.findUnique({ where: { id: job.id }, select: { runningSince: true } });
  const since = holder?.runningSince ? ` (started ${holder.runningSince.toISOString().replace("T", " ").slice(0, 16)} UTC)` : "";
  const skipped = await db().chronosExecution.update({
    where: { id: execution.id },
    data: { status: "SKIPPED", statusReason: `The previous run of this job was still going${since}.`, endedAt: now },
  });
  await db().chronosJob.updateMany({ where: { id: job.id }, data: { lastStatus: "SKIPPED" } });
  return { outcome: "skipped", execution: skipped };
}

/** A triage execution for a webhook delivery (no hold: every delivery gets its own triage). */
export async function beginTriageExecution(options: { userId: string; endpointId: string; note?: string }): Promise<ChronosExecution> {
  return db().chronosExecution.create({ data: { userId: options.userId, endpointId: options.endpointId, trigger: "WEBHOOK", status: "QUEUED", statusReason: options.note ?? null } });
}

/** Whether this execution still holds its job (a hold taken over after a crash is lost). */
export async function holdsJob(execution: Pick<ChronosExecution, "id" | "jobId">): Promise<boolean> {
  if (!execution.jobId) return true;
  return (await db().chronosJob.count({ where: { id: execution.jobId, runningExecutionId: execution.id } })) > 0;
}

export async function attachSession(executionId: string, sessionId: string): Promise<boolean> {
  const { count } = await db().chronosExecution.updateMany({ where: { id: executionId, sessionId: null }, data: { sessionId } });
  return count > 0;
}

export async function markRunning(executionId: string, now = new Date()): Promise<void> {
  await db().chronosExecution.updateMany({ where: { id: executionId, status: "QUEUED" }, data: { status: "RUNNING", startedAt: now } });
}

/**
 * Records how an execution ended and lets go of its job, in that order (a crash in between leaves
 * a hold that the stale rule frees, never an execution without its result). A final status is
 * never overwritten.
 */
export async function finishExecution(options: { executionId: string; status: Exclude<ChronosExecutionStatus, "QUEUED" | "RUNNING">; reason?: string | null; now?: Date }): Promise<ChronosExecution | undefined> {
  const now = options.now ?? new Date();
  // A note made when the execution was queued ("3 earlier runs were missed …") stays in front.
  const note = (await db().chronosExecution.findUnique({ where: { id: options.executionId }, select: { statusReason: true } }))?.statusReason;
  const reason = [note, options.reason].filter(Boolean).join(" ");
  const { count } = await db().chronosExecution.updateMany({
    where: { id: options.executionId, status: { in: ["QUEUED", "RUNNING"] } },
    data: { status: options.status, statusReason: reason ? storableText(reason).slice(0, 2_000) : null, endedAt: now },
  });
  const execution = await db().chronosExecution.findUnique({ where: { id: options.executionId } });
  if (!execution) return undefined;
  if (execution.jobId) {
    await db().chronosJob.updateMany({ where: { id: execution.jobId, runningExecutionId: execution.id }, data: { runningExecutionId: null, runningSince: null } });
    if (count) await db().chronosJob.updateMany({ where: { id: execution.jobId }, data: { lastStatus: execution.status, lastRunAt: execution.startedAt ?? now } });
  }
  return execution;
}

export async function getExecutionOrThrow(options: { userId: string; executionId: string }): Promise<ChronosExecution> {
  const id = z.uuid().safeParse(options.executionId);
  const execution = id.success ? await db().chronosExecution.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!execution) throw new AppError("not_found", "No such execution.");
  return execution;
}

export async function listJobExecutions(options: { userId: string; jobId: string; limit?: number }): Promise<ChronosExecution[]> {
  return db().chronosExecution.findMany({ where: { userId: options.userId, jobId: options.jobId }, orderBy: { createdAt: "desc" }, take: options.limit ?? 50 });
}

/**
 * Executions left QUEUED or RUNNING longer than any run may take (their process died and no retry
 * came, e.g. the job run itself was lost): closed as FAILED, their hold released. The run of such
 * an execution is never started again here; its session shows what it did.
 */
export async function recoverStaleExecutions(options: { now?: Date; maxTimeoutSeconds: number }): Promise<number> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.maxTimeoutSeconds * 1000 - STALE_MARGIN_MS);
  const stale = await db().chronosExecution.findMany({ where: { status: { in: ["QUEUED", "RUNNING"] }, createdAt: { lt: cutoff } }, take: 200 });
  for (const execution of stale) {
    await finishExecution({
      executionId: execution.id,
      status: "FAILED",
      reason: execution.status === "RUNNING" ? "Interrupted: the server stopped during the run, which was not started again (open the trace to see how far it got)." : "Never started: the server stopped before the run began.",
      now,
    });
  }
  return stale.length;
}
