import { AppError } from "@/lib/errors";
import { processSingleton } from "@/lib/process-singleton";
import type { TAnyJobDefinition } from "./define-job";

/**
 * The jobs this process knows, installed by installApp() (lib/app/install-app.ts, called by
 * instrumentation.ts, scripts and the test setup). Features send events through the engine's
 * sendEvent without importing the catalog, which sits above them in the layering. One per
 * process (processSingleton) because Next.js may load a module more than once in one process.
 */
const slot = processSingleton("jobs.installed", (): { jobs?: readonly TAnyJobDefinition[] } => ({}));

export function installJobs(jobs: readonly TAnyJobDefinition[]): void {
  slot.jobs = jobs;
}

export function installedJobs(): readonly TAnyJobDefinition[] {
  if (!slot.jobs) throw new AppError("unavailable", "Background jobs are not set up in this process (installApp() from lib/app was never called).");
  return slot.jobs;
}
