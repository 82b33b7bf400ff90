import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { createLogger } from "@/lib/observability/logger";
import { beginJobExecution, recoverStaleExecutions } from "./executions";
import { areSchedulesPaused } from "./schedules-paused";
import { latestDueSlot, nextRunAfter, storedScheduleOf } from "./schedule";

/**
 * The scheduler's tick (the `chronos.tick` job, every minute on the jobs layer): finds the jobs
 * whose `nextRunAt` has come, creates one execution for each (the latest due slot: after downtime
 * at most one missed run is made up) and moves `nextRunAt` on. Several ticks at once (processes,
 * a retry) are harmless: the unique (job, slot) makes the second execution a no-op, and
 * `nextRunAt` only moves with a compare-and-set on its old value.
 */
const log = createLogger("chronos");

/** A slot older than this when the tick finds it was missed (the scheduler or the server was down). */
const LATE_AFTER_MS = 2 * 60_000;
const BATCH = 500;

export type TTickResult = { queued: { executionId: string; userId: string }[]; skipped: number; duplicates: number; paused: boolean; recovered: number };

export async function scheduleDueJobs(options: { now?: Date } = {}): Promise<TTickResult> {
  const now = options.now ?? new Date();
  const recovered = await recoverStaleExecutions({ now, maxTimeoutSeconds: getBehaviourConfig().chronos.maxTimeoutSeconds });
  const due = await db().chronosJob.findMany({
    where: { nextRunAt: { lte: now }, enabled: true, pausedByAdmin: false },
    orderBy: { nextRunAt: "asc" },
    take: BATCH,
  });
  const result: TTickResult = { queued: [], skipped: 0, duplicates: 0, paused: false, recovered };
  if (!due.length) return result;
  const paused = await areSchedulesPaused();
  result.paused = paused;
  for (const job of due) {
    const schedule = storedScheduleOf(job);
    const { slot, missed, missedMore } = latestDueSlot(schedule, job.nextRunAt!, now);
    if (!paused) {
      const late = now.getTime() - slot.getTime() > LATE_AFTER_MS || missed > 0;
      const note = missed > 0 ? `${missedMore ? "More than " : ""}${missed} earlier run${missed === 1 ? " was" : "s were"} missed while xclaw was not running; only this one was made up.` : undefined;
      const begun = await beginJobExecution({ job, trigger: late ? "CATCH_UP" : "SCHEDULE", scheduledFor: slot, note, now });
      if (begun.outcome === "queued") result.queued.push({ executionId: begun.execution.id, userId: job.userId });
      else if (begun.outcome === "skipped") result.skipped++;
      else result.duplicates++;
    }
    // While schedules are paused, slots pass without runs and are not made up afterwards.
    await db().chronosJob.updateMany({ where: { id: job.id, nextRunAt: job.nextRunAt }, data: { nextRunAt: nextRunAfter(schedule, now) } });
  }
  if (result.queued.length || result.skipped) log.info("scheduled jobs due", { queued: result.queued.length, skipped: result.skipped, duplicates: result.duplicates });
  return result;
}
