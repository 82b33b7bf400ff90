/**
 * A stand-in for an app process in the multi-agent crash test: an embedded job runner with the
 * app's jobs, and one chat run (AGENTS_SESSION_ID, AGENTS_USER_ID, AGENTS_MESSAGE) started in it,
 * so the parent run and its workers' jobs live in this process — until the test kills it with -9.
 */
import { installApp } from "@/lib/app/install-app";
import { jobCatalog } from "@/lib/app/job-catalog";
import { createJobRunner } from "@/lib/jobs/job-runner";
import { startRun } from "@/lib/runs/start-run";

installApp();
const runner = createJobRunner({ jobs: jobCatalog, leaseMs: Number(process.env.JOBS_LEASE_MS ?? 1_500), pollIntervalMs: 50, retryBaseDelayMs: 20, cron: false, concurrency: 10 });
await runner.start();
await startRun({
  session: { id: process.env.AGENTS_SESSION_ID!, userId: process.env.AGENTS_USER_ID! },
  input: { kind: "message", text: process.env.AGENTS_MESSAGE! },
  trigger: "web",
});
process.stdout.write(`agents-process ready ${runner.id}\n`);
// Lives until killed.
setInterval(() => {}, 60_000);
