import { AppError } from "@/lib/errors";
import type { TAnyJobDefinition } from "./define-job";

/**
 * The jobs this process knows, installed by installApp() (lib/app/install-app.ts, called by
 * instrumentation.ts, scripts and the test setup). Features send events through the engine's
 * sendEvent without importing the catalog, which sits above them in the layering. Kept on
 * globalThis because Next.js may load a module more than once in one process.
 */
const slot = globalThis as unknown as { xclawInstalledJobs?: readonly TAnyJobDefinition[] };

export function installJobs(jobs: readonly TAnyJobDefinition[]): void {
  slot.xclawInstalledJobs = jobs;
}

export function installedJobs(): readonly TAnyJobDefinition[] {
  if (!slot.xclawInstalledJobs) throw new AppError("unavailable", "Background jobs are not set up in this process (installApp() from lib/app was never called).");
  return slot.xclawInstalledJobs;
}
