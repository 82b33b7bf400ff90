import { getBehaviourConfig } from "@/lib/config/behaviour";
import { jobCatalog } from "./catalog";
import { createJobRunner, type TJobRunner, type TJobRunnerOptions } from "./job-runner";

/**
 * The app's embedded runner: the catalog's jobs with the settings from xclaw.yaml (jobs:). One per
 * process, kept on globalThis because Next.js may load this module more than once. Started by
 * instrumentation.ts in every Next.js server process when jobs.runner is local; scripts and
 * tests can start one the same way (or build their own with createJobRunner).
 */
const globalForRunner = globalThis as unknown as { xclawJobRunner?: Promise<TJobRunner> };

export function startJobRunner(overrides: Partial<TJobRunnerOptions> = {}): Promise<TJobRunner> {
  globalForRunner.xclawJobRunner ??= (async () => {
    const settings = getBehaviourConfig().jobs;
    const runner = createJobRunner({
      jobs: jobCatalog,
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
  const started = globalForRunner.xclawJobRunner;
  started.catch(() => {
    if (globalForRunner.xclawJobRunner === started) globalForRunner.xclawJobRunner = undefined;
  });
  return started;
}

/** Graceful shutdown: see TJobRunner.stop. */
export async function stopJobRunner(options: { graceMs?: number } = {}): Promise<void> {
  const started = globalForRunner.xclawJobRunner;
  globalForRunner.xclawJobRunner = undefined;
  if (!started) return;
  const runner = await started.catch(() => undefined);
  await runner?.stop(options);
}
