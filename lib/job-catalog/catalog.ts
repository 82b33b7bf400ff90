import { pruneAuthRecordsJob } from "@/lib/auth/prune-job";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { jobsPruneJob } from "@/lib/jobs/builtin/jobs-prune";
import { cleanRunStateJob, expireApprovalsJob } from "@/lib/runs/run-jobs";

/**
 * Every job of the app, in one list that both backends use: the embedded runner claims runs of
 * these jobs, inngest/functions.ts turns each into an Inngest function, and sendEvent validates
 * events against their schemas. A domain defines its jobs beside its code (lib/<domain>) with
 * defineJob from the engine (lib/jobs) and adds them here.
 *
 * This folder sits on top of the layering: only entry points (the runner start, sendEvent for the
 * app, the admin actions, inngest/functions.ts) import the catalog; inside a job, send events with
 * step.sendEvent.
 */
export const jobCatalog: readonly TAnyJobDefinition[] = [pruneAuthRecordsJob, jobsPruneJob, expireApprovalsJob, cleanRunStateJob];
