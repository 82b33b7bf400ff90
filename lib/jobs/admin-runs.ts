import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { JobRun, JobRunStatus, JobStep } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { installedJobs } from "./installed-jobs";
import { enqueueCronRun, nextCronRun } from "./cron-runs";
import { isEventTrigger } from "./define-job";
import { requestJobCancel, requeueJobRun } from "./job-queue/admin";

/**
 * What admins see of background jobs (/admin/jobs and /api/admin/jobs/…): runs of the embedded
 * runner with their steps, and the two actions, retry and cancel. With jobs.runner: inngest, runs
 * live in Inngest and its dashboard shows them.
 */
export const JOB_RUN_STATUSES = ["queued", "running", "sleeping", "completed", "failed", "cancelled"] as const;
export const ZJobRunStatus = z.enum(JOB_RUN_STATUSES, { error: `status must be one of ${JOB_RUN_STATUSES.join(", ")}.` });
export type TJobRunStatus = z.infer<typeof ZJobRunStatus>;

export const ZListJobRunsQuery = z.strictObject({
  status: ZJobRunStatus.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export type TJobRunSummary = {
  id: string;
  jobId: string;
  status: TJobRunStatus;
  /** Zero-based; the run has had attempt + 1 tries so far. */
  attempt: number;
  maxAttempts: number;
  trigger: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  error: string | null;
  /** A cancel was asked for and the running handler is being stopped. */
  cancelRequested: boolean;
  parentRunId: string | null;
};

export type TJobStepView = {
  stepId: string;
  kind: string;
  status: "completed" | "failed" | "sleeping" | "waiting";
  output: unknown;
  error: string | null;
  wakeAt: string | null;
  childRunId: string | null;
  attempt: number;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
};

export type TJobRunDetail = TJobRunSummary & {
  eventName: string;
  eventId: string;
  data: unknown;
  output: unknown;
  steps: TJobStepView[];
};

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

function toSummary(run: JobRun): TJobRunSummary {
  return {
    id: run.id,
    jobId: run.jobId,
    status: run.status.toLowerCase() as TJobRunStatus,
    attempt: run.attempt,
    maxAttempts: run.maxAttempts,
    trigger: run.trigger,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    endedAt: iso(run.endedAt),
    durationMs: run.startedAt && run.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null,
    error: run.error,
    cancelRequested: run.cancelRequested,
    parentRunId: run.parentRunId,
  };
}

function toStepView(step: JobStep): TJobStepView {
  return {
    stepId: step.stepId,
    kind: step.kind,
    status: step.status.toLowerCase() as TJobStepView["status"],
    output: (step.output as { value?: unknown } | null)?.value ?? null,
    error: step.error,
    wakeAt: iso(step.wakeAt),
    childRunId: step.childRunId,
    attempt: step.attempt,
    startedAt: step.startedAt.toISOString(),
    endedAt: iso(step.endedAt),
    durationMs: step.endedAt ? step.endedAt.getTime() - step.startedAt.getTime() : null,
  };
}

export async function listJobRuns(query: { status?: TJobRunStatus; limit?: number } = {}): Promise<TJobRunSummary[]> {
  const runs = await db().jobRun.findMany({
    where: query.status ? { status: query.status.toUpperCase() as JobRunStatus } : {},
    orderBy: { createdAt: "desc" },
    take: query.limit ?? 100,
  });
  return runs.map(toSummary);
}

const ZRunId = z.uuid();

export async function getJobRunOrThrow(runId: string): Promise<TJobRunDetail> {
  const run = ZRunId.safeParse(runId).success ? await db().jobRun.findUnique({ where: { id: runId }, include: { steps: { orderBy: { startedAt: "asc" } } } }) : null;
  if (!run) throw new AppError("not_found", "No such job run.");
  return { ...toSummary(run), eventName: run.eventName, eventId: run.eventId, data: run.data, output: run.output, steps: run.steps.map(toStepView) };
}

/** Failed or cancelled runs go back to the queue with fresh attempts, resuming after their last completed step. */
export async function retryJobRun(runId: string): Promise<TJobRunDetail> {
  const run = await getJobRunOrThrow(runId);
  if (run.status !== "failed" && run.status !== "cancelled") throw new AppError("conflict", `Only failed or cancelled runs can be retried; this one is ${run.status}.`);
  if (!(await requeueJobRun(runId))) throw new AppError("conflict", "The run changed meanwhile; reload and try again.");
  return getJobRunOrThrow(runId);
}

/** Waiting runs end at once; a running one is aborted through its handler's signal, in whichever process runs it. */
export async function cancelJobRun(runId: string, actor: string): Promise<TJobRunDetail> {
  const run = await getJobRunOrThrow(runId);
  if (run.status === "completed" || run.status === "failed" || run.status === "cancelled") throw new AppError("conflict", `The run has already ended (${run.status}).`);
  if (!(await requestJobCancel(runId, `Cancelled by ${actor}.`))) throw new AppError("conflict", "The run ended meanwhile; reload to see how.");
  return getJobRunOrThrow(runId);
}

export const ZStartJobRun = z.strictObject({ jobId: z.string().min(1).max(100) });

/**
 * "Run now" for a cron job (e.g. prune before a backup), on the embedded runner. Event jobs need
 * their event's data, so they are started by sending the event instead.
 */
export async function startJobRunNow(jobId: string, actor: string): Promise<TJobRunDetail> {
  if (getBehaviourConfig().jobs.runner !== "local") throw new AppError("conflict", "Jobs run on Inngest (jobs.runner: inngest); start them from its dashboard.");
  const job = installedJobs().find((candidate) => candidate.id === jobId);
  if (!job) throw new AppError("not_found", `No job "${jobId}" in this version of xclaw.`);
  if (isEventTrigger(job.trigger)) throw new AppError("bad_request", `Job "${jobId}" starts on the event ${job.trigger.event}; send that event to run it.`);
  const result = await enqueueCronRun(job, { manualBy: actor });
  const runId = result.runIds[0];
  if (!runId) throw new AppError("conflict", `Job "${jobId}" is already running or waiting to run (it is a singleton).`);
  return getJobRunOrThrow(runId);
}

export type TJobDefinitionView = {
  id: string;
  trigger: string;
  retries: number;
  concurrency: string | null;
  singleton: string | null;
  /** Cron jobs: the next slot; they can also be started by hand. */
  nextRunAt: string | null;
};

/** The catalog as admins see it, and which backend runs it. */
export function describeJobs(): { runner: "local" | "inngest"; jobs: TJobDefinitionView[] } {
  return {
    runner: getBehaviourConfig().jobs.runner,
    jobs: installedJobs().map((job) => ({
      id: job.id,
      trigger: isEventTrigger(job.trigger) ? `event ${job.trigger.event}` : `cron ${job.trigger.cron} (${job.trigger.tz ?? "UTC"})`,
      retries: job.retries,
      concurrency: job.concurrency ? `${job.concurrency.limit}${job.concurrency.key ? ` per ${job.concurrency.key}` : ""}` : null,
      singleton: job.singleton ? `${job.singleton.mode}${job.singleton.key ? ` per ${job.singleton.key}` : ""}` : null,
      nextRunAt: nextCronRun(job)?.toISOString() ?? null,
    })),
  };
}
