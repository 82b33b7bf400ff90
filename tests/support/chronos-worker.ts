/**
 * A worker process for the chronos multi-process test: an embedded runner with the app's real jobs
 * over DATABASE_URL, which, once started, runs the scheduler's tick for each time in CHRONOS_TICKS
 * (JSON list of ISO times), all at once, and hands what it queued to the jobs layer, exactly as the
 * `chronos.tick` job does. Several such workers race for the same slots.
 */
import { scheduleDueJobs } from "@/lib/chronos/scheduler";
import { EXECUTION_EVENT, executionEventId } from "@/lib/chronos/events";
import { installApp } from "@/lib/app/install-app";
import { jobCatalog } from "@/lib/app/job-catalog";
import { createJobRunner } from "@/lib/jobs/job-runner";
import { sendEvent } from "@/lib/jobs/send-event";

installApp();
const runner = createJobRunner({ jobs: jobCatalog, leaseMs: 3_000, pollIntervalMs: 100, retryBaseDelayMs: 20, cron: false });
await runner.start();
process.stdout.write(`jobs-worker ready ${runner.id}\n`);
const ticks = (JSON.parse(process.env.CHRONOS_TICKS ?? "[]") as string[]).map((time) => new Date(time));
const results = await Promise.all(ticks.map((now) => scheduleDueJobs({ now })));
const queued = results.flatMap((result) => result.queued);
if (queued.length) await sendEvent(queued.map((entry) => ({ name: EXECUTION_EVENT, data: entry, id: executionEventId(entry.executionId) })));
process.stdout.write(`chronos-worker queued ${queued.length}\n`);
process.on("SIGTERM", () => {
  void runner.stop({ graceMs: 5_000 }).then(() => process.exit(0));
});
