import { getBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { jobCatalog } from "./job-catalog";
import { withJobSpans } from "@/lib/telemetry/job-spans";
import { createJobRunner, type TJobRunner, type TJobRunnerOptions } from "@/lib/jobs/job-runner";

/**
 * The app's embedded runner: the catalog's jobs with the settings from xclaw.yaml (jobs:). One per
 * process (processSingleton) because Next.js may load this module more than once. Started by
 * instrumentation.ts in every Next.js server process when jobs.runner is local; scripts and
 * tests can start one the same way (or build their own with createJobRunner).
 */
const log = createLogger("jobs");
// The runner being started or running; cleared when its start fails, so a later call tries again.
const slot = processSingleton("jobs.app-runner", (): { runner?: Promise<TJobRunner> } => ({}));

export function startJobRunner(overrides: Partial<TJobRunnerOptions> = {}): Promise<TJobRunner> {
  slot.runner ??= (async () => {
    const settings = getBehaviourConfig().jobs;
    const runner = createJobRunner({
      jobs: withJobSpans(jobCatalog),
      concurrency: settings.concurrency,
      leaseMs: settings.leaseSeconds * 1000,
      pollIntervalMs: settings.pollIntervalMs,
      maxStepOutputBytes: settings.maxStepOutputBytes,
      retryBaseDelayMs: settings.retryBaseDelayMs,
      ...overrides,
    });
    await runner.start();
    return runner;
  })();
  const started = slot.runner;
  started.catch(() => {
    if (slot.runner === started) slot.runner = undefined;
  });
  return started;
}

/**
 * For instrumentation.ts: starts the runner when jobs.runner is local and a database is
 * configured; logs instead of failing, so a database that is briefly down at start does not keep
 * the web app from serving (the runner is started again on the next process start).
 */
export async function startAppJobRunner(): Promise<void> {
  if (getBehaviourConfig().jobs.runner !== "local") return;
  if (!environment().DATABASE_URL) {
    log.warn("job runner not started: DATABASE_URL is not set (start the app with `npm run dev` or `npm start`)");
    return;
  }
  try {
    await startJobRunner();
  } catch (error) {
    log.error("job runner could not start", { error });
  }
}

/** Graceful shutdown: see TJobRunner.stop. */
export async function stopJobRunner(options: { graceMs?: number } = {}): Promise<void> {
  const started = slot.runner;
  slot.runner = undefined;
  if (!started) return;
  const runner = await started.catch(() => undefined);
  await runner?.stop(options);
}
