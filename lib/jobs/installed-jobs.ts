import { AppError } from "@/lib/errors";
import { processSingleton } from "@/lib/process-singleton";
import type { TAnyJobDefinition } from "./define-job";

/**
 * The jobs this process knows, installed once by the catalog (lib/job-catalog/catalog.ts, loaded
 * by instrumentation.ts, the Inngest route and the test setup). Domains send events through the
 * engine's sendEvent without importing the catalog, which sits above them in the layering. One per
 * process (processSingleton) because Next.js may load a module more than once in one process.
 */
const slot = processSingleton("jobs.installed", (): { jobs?: readonly TAnyJobDefinition[] } => ({}));

export function installJobs(jobs: readonly TAnyJobDefinition[]): void {
  slot.jobs = jobs;
}

export function installedJobs(): readonly TAnyJobDefinition[] {
  if (!slot.jobs) throw new AppError("unavailable", "Background jobs are not set up in this process (the job catalog was never loaded).");
  return slot.jobs;
}
