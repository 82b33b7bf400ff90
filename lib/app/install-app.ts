import { installCapabilities } from "@/lib/capabilities/installed-capabilities";
import { installJobs } from "@/lib/jobs/installed-jobs";
import { installTelemetry } from "@/lib/telemetry/install-telemetry";
import { withJobSpans } from "@/lib/telemetry/job-spans";
import { appCapabilities } from "./capabilities";
import { jobCatalog } from "./job-catalog";

/**
 * The composition root: hands the product's parts to the engines that run them. The capability
 * list goes to the run core (lib/capabilities/installed-capabilities.ts), the job catalog to the
 * jobs engine (sendEvent, the runner, the admin pages). Called once per process, explicitly, by
 * instrumentation.ts, the Inngest route, scripts and the test setup; nothing relies on an
 * import's side effect. Calling it again is harmless. Telemetry (lib/telemetry) observes the run
 * core's runs and wraps each job in a span (which costs nothing while no tracer is set up).
 */
export function installApp(): void {
  installCapabilities(appCapabilities);
  installJobs(withJobSpans(jobCatalog));
  installTelemetry();
}
