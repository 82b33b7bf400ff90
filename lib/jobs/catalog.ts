import type { TAnyJobDefinition } from "./define-job";
import { jobsPruneJob } from "./builtin/jobs-prune";
import { rateLimitsPruneJob } from "./builtin/rate-limits-prune";

/**
 * Every job of the app, in one list that both backends use: the embedded runner claims runs of
 * these jobs, inngest/functions.ts turns each into an Inngest function, and sendEvent validates
 * events against their schemas. Add a domain's jobs here (e.g. `...chronosJobs`).
 *
 * Only entry points import this file (lib/jobs/start-runner.ts, lib/jobs/send-event.ts,
 * inngest/functions.ts, the admin routes); the engine takes job lists as arguments, so a job
 * module never imports the catalog back. Inside a job, send events with step.sendEvent.
 */
export const jobCatalog: readonly TAnyJobDefinition[] = [rateLimitsPruneJob, jobsPruneJob];
