import { NonRetriableError } from "@/lib/jobs/job-errors";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { createLogger } from "@/lib/observability/logger";
import { pruneNotifications } from "@/lib/notifications/inbox";
import { deleteSession } from "@/lib/sessions/sessions";
import { EXECUTION_EVENT, executionEventId, RUN_NOW_EVENT, ZExecutionEvent, ZRunNowEvent } from "./events";
import { failExecution, runExecution } from "./run-execution";
import { runJobNow } from "./run-now";
import { scheduleDueJobs } from "./scheduler";

/**
 * Chronos on the jobs layer:
 * - `chronos.tick` (every minute): the scheduler; it queues one `chronos.execute` run per due job.
 * - `chronos.execute`: one execution (a scheduled run, "run now" or an alert triage), at most two
 *   of one user's at a time. Retried when the run could not start (too many runs at once) and on
 *   infrastructure errors; a run that had started is never started again (see run-execution.ts).
 * - `chronos.run-now`: "run now" asked for by the cron_manage tool.
 * - `chronos.prune` (daily): executions, their sessions, alerts and notifications past chronos.keepDays.
 */
const log = createLogger("chronos");

export const chronosTickJob = defineJob(
  { id: "chronos.tick", trigger: { cron: "* * * * *" }, singleton: { mode: "skip" }, retries: 1 },
  async ({ step }) => {
    const tick = await step.run("schedule-due", () => scheduleDueJobs());
    if (tick.queued.length) {
      await step.sendEvent(
        "start-runs",
        tick.queued.map((entry) => ({ name: EXECUTION_EVENT, data: entry, id: executionEventId(entry.executionId) })),
      );
    }
    return { queued: tick.queued.length, skipped: tick.skipped, paused: tick.paused, recovered: tick.recovered };
  },
);

export const chronosExecuteJob = defineJob(
  {
    id: "chronos.execute",
    trigger: { event: EXECUTION_EVENT },
    schema: ZExecutionEvent,
    concurrency: { key: "event.data.userId", limit: 2 },
    retries: 3,
  },
  async ({ event, step, signal }) => {
    try {
      return await step.run("run", () => runExecution(event.data.executionId, { signal }));
    } catch (error) {
      // Only reached when the retries are used up or the error was final: record it, then fail the job run too.
      await step.run("record-failure", () => failExecution(event.data.executionId, error));
      throw error instanceof NonRetriableError ? error : new NonRetriableError(error instanceof Error ? error.message : String(error));
    }
  },
);

export const chronosRunNowJob = defineJob(
  { id: "chronos.run-now", trigger: { event: RUN_NOW_EVENT }, schema: ZRunNowEvent, retries: 0 },
  async ({ event, step }) => step.run("begin", () => runJobNow({ userId: event.data.userId, jobId: event.data.jobId })),
);

/** Deletes what chronos keeps past chronos.keepDays; sessions go through deleteSession, so their resources are released. */
export async function pruneChronos(options: { now?: Date } = {}): Promise<{ executions: number; alerts: number; notifications: number; sessions: number }> {
  const now = options.now ?? new Date();
  const before = new Date(now.getTime() - getBehaviourConfig().chronos.keepDays * 86_400_000);
  const executions = await db().chronosExecution.deleteMany({ where: { createdAt: { lt: before }, status: { notIn: ["QUEUED", "RUNNING"] } } });
  const alerts = await db().webhookAlert.deleteMany({ where: { receivedAt: { lt: before } } });
  const notifications = await pruneNotifications({ before });
  const stale = await db().chatSession.findMany({
    where: { trigger: { in: ["JOB", "WEBHOOK"] }, updatedAt: { lt: before }, status: { notIn: ["RUNNING", "PAUSED"] } },
    select: { id: true, userId: true },
    take: 500,
  });
  let sessions = 0;
  for (const session of stale) {
    try {
      await deleteSession({ userId: session.userId, sessionId: session.id });
      sessions++;
    } catch (error) {
      log.warn("could not delete an old chronos session", { sessionId: session.id, error });
    }
  }
  return { executions: executions.count, alerts: alerts.count, notifications, sessions };
}

export const chronosPruneJob = defineJob(
  { id: "chronos.prune", trigger: { cron: "40 3 * * *" }, singleton: { mode: "skip" }, retries: 2 },
  async ({ step }) => step.run("prune", () => pruneChronos()),
);

export const chronosJobs = [chronosTickJob, chronosExecuteJob, chronosRunNowJob, chronosPruneJob];
