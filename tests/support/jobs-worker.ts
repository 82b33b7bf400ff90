/**
 * A worker process for the jobs tests: an embedded runner over DATABASE_URL with the fixture jobs.
 * JOBS_WORKER_SEND (JSON) is a list of events it sends once it runs (to race other workers);
 * JOBS_LEASE_MS sets its lease. SIGTERM stops it gracefully; the tests also SIGKILL it.
 */
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { createJobRunner } from "@/lib/jobs/job-runner";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { fixtureJobs } from "./jobs-fixtures";

const runner = createJobRunner({
  jobs: fixtureJobs,
  leaseMs: Number(process.env.JOBS_LEASE_MS ?? 1_500),
  pollIntervalMs: 100,
  retryBaseDelayMs: 20,
  concurrency: Number(process.env.JOBS_CONCURRENCY ?? 5),
  cron: false,
});
await runner.start();
if (process.env.JOBS_WORKER_SEND) await enqueueJobEvents(createJobRegistry(fixtureJobs), JSON.parse(process.env.JOBS_WORKER_SEND));
process.stdout.write(`jobs-worker ready ${runner.id}\n`);
process.on("SIGTERM", () => {
  void runner.stop({ graceMs: 5_000 }).then(() => process.exit(0));
});
