import { agentWorkerJob } from "@/lib/agents/worker-job";
import { pruneAuthRecordsJob } from "@/lib/auth/prune-job";
import { chronosJobs } from "@/lib/chronos/chronos-jobs";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { jobsPruneJob } from "@/lib/jobs/builtin/jobs-prune";
import { installJobs } from "@/lib/jobs/installed-jobs";
import { deliverNotificationJob } from "@/lib/notifications/deliver-job";
import { memoryJobs } from "@/lib/memory/jobs";
import { cleanRunStateJob, expireApprovalsJob } from "@/lib/runs/run-jobs";

/**
 * Every job of the app, in one list that both backends use: the embedded runner claims runs of
 * these jobs, inngest/functions.ts turns each into an Inngest function, and sendEvent validates
 * events against their schemas. A domain defines its jobs beside its code (lib/<domain>) with
 * defineJob from the engine (lib/jobs) and adds them here.
 *
 * This folder sits on top of the layering: only entry points (the runner start, the admin actions,
 * inngest/functions.ts, instrumentation.ts) import the catalog. Loading it installs the jobs for
 * the engine's sendEvent, which domains call without importing this file.
 */
export const jobCatalog: readonly TAnyJobDefinition[] = [
  pruneAuthRecordsJob,
  jobsPruneJob,
  expireApprovalsJob,
  cleanRunStateJob,
  // Chronos: scheduler tick, executions, run now, prune; notification deliveries.
  ...chronosJobs,
  deliverNotificationJob,
  // Multi-agent: one worker run per job.
  agentWorkerJob,
  // Memory: extraction, indexing, embedding backfill and re-embedding.
  ...memoryJobs,
];
installJobs(jobCatalog);
