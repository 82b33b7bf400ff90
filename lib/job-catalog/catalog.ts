import { pruneAuthRecordsJob } from "@/lib/auth/prune-job";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { jobsPruneJob } from "@/lib/jobs/builtin/jobs-prune";
import { installJobs } from "@/lib/jobs/installed-jobs";
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
export const jobCatalog: readonly TAnyJobDefinition[] = [pruneAuthRecordsJob, jobsPruneJob, expireApprovalsJob, cleanRunStateJob, ...memoryJobs];
installJobs(jobCatalog);
