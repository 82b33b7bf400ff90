import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { db } from "@/lib/db/client";
import type { JobRun } from "@/lib/db/generated/client";
import { createJobRunner, type TJobRunner, type TJobRunnerOptions } from "@/lib/jobs/job-runner";
import { fixtureJobs } from "./jobs-fixtures";

/** Helpers for the jobs tests: runners with test settings, waiting for runs, worker processes. */
export async function startTestRunner(options: Partial<TJobRunnerOptions> = {}): Promise<TJobRunner> {
  const runner = createJobRunner({ jobs: fixtureJobs, pollIntervalMs: 100, leaseMs: 3_000, retryBaseDelayMs: 20, cron: false, ...options });
  await runner.start();
  return runner;
}

/** Polls until the run is in one of `statuses` (a deadline, not a timing assertion). */
export async function waitForRun(runId: string, statuses: JobRun["status"][], timeoutMs = 20_000): Promise<JobRun> {
  const deadline = Date.now() + timeoutMs;
  let run: JobRun | null = null;
  while (Date.now() < deadline) {
    run = await db().jobRun.findUnique({ where: { id: runId } });
    if (run && statuses.includes(run.status)) return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not reach ${statuses.join("|")} within ${timeoutMs} ms; it is ${run?.status} (${run?.error ?? "no error"})`);
}

export async function waitUntil(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export type TWorkerProcess = { child: ChildProcess; ready: Promise<void>; exited: Promise<number | null>; output: () => string };

/**
 * Starts tests/support/jobs-worker.ts in a child process with tsx: a real embedded runner over
 * the test file's database (PGlite is reached through its socket server, like the app does).
 */
export function spawnWorker(env: Record<string, string>, script = "tests/support/jobs-worker.ts"): TWorkerProcess {
  const root = path.resolve(import.meta.dirname, "../..");
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, script)], {
    cwd: root,
    env: {
      ...process.env,
      XCLAW_LOG_SILENT: "1",
      ...(process.env.XCLAW_TEST_DATABASE === "pglite" ? { XCLAW_EMBEDDED_DATABASE_URL: process.env.DATABASE_URL! } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes("jobs-worker ready")) resolveReady();
  });
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      rejectReady(new Error(`worker exited with ${code} before it was ready:\n${output}`));
      resolve(code);
    }),
  );
  return { child, ready, exited, output: () => output };
}
