import { agentWorkerJob } from "@/lib/agents/worker-job";
import { pruneAuthRecordsJob } from "@/lib/auth/prune-job";
import { channelJobs } from "@/lib/channels/channel-jobs";
import { chronosJobs } from "@/lib/chronos/chronos-jobs";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { jobsPruneJob } from "@/lib/jobs/builtin/jobs-prune";
import { deliverNotificationJob } from "@/lib/notifications/deliver-job";
import { memoryJobs } from "@/lib/memory/jobs";
import { cleanRunStateJob, expireApprovalsJob, resumeHandedOverJob } from "@/lib/runs/run-jobs";

/**
 * Every job of the app, in one list that both backends use: the embedded runner claims runs of
 * these jobs, inngest/functions.ts turns each into an Inngest function, and sendEvent validates
 * events against their schemas. A feature defines its jobs beside its code (lib/<feature>) with
 * defineJob from the engine (lib/jobs) and adds them here; installApp() hands the list to the
 * engine, so features send events without importing this file.
 */
export const jobCatalog: readonly TAnyJobDefinition[] = [
  pruneAuthRecordsJob,
  jobsPruneJob,
  expireApprovalsJob,
  cleanRunStateJob,
  resumeHandedOverJob,
  // Chronos: scheduler tick, executions, run now, prune; notification deliveries.
  ...chronosJobs,
  deliverNotificationJob,
  // Multi-agent: one worker run per job.
  agentWorkerJob,
  // Memory: extraction, indexing, embedding backfill and re-embedding.
  ...memoryJobs,
  // Channels (QQ, Feishu): inbound messages, the rest of an answer after an approval, pruning.
  ...channelJobs,
];
