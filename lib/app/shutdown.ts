import { getBehaviourConfig } from "@/lib/config/behaviour";
import { disconnectDatabase } from "@/lib/db/client";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { drainRuns } from "@/lib/runs/drain";
import { markDraining } from "@/lib/runs/drain-state";
import { stopTracing } from "@/lib/telemetry/tracing";
import { stopJobRunner } from "./app-job-runner";

/**
 * A graceful stop of a production server process (SIGTERM from systemd, `docker stop`, a
 * rolling deploy; SIGINT from a terminal). The launcher sets NEXT_MANUAL_SIG_HANDLE, so Next.js
 * leaves the signals to us instead of exiting with 143 after closing the listener:
 *
 * 1. at once: readiness (`/api/health?ready=1`) answers 503 and new runs are refused with 503 and
 *    Retry-After, while everything else (a chat's stream, its follow-up requests) is still served;
 * 2. the job runner stops claiming; its handlers and the runs in progress get
 *    `shutdown.drainSeconds` to finish;
 * 3. runs still going are handed over (lib/runs/drain.ts), job runs released to the queue;
 * 4. the spans still buffered are sent (at most 5 s), the database pool is closed and the process exits 0.
 * The same signal twice (systemd and the launcher may both send it) counts once; another signal
 * later exits at once.
 */
const log = createLogger("shutdown");
const SAME_SIGNAL_MS = 2_000;

export async function drainAndExit(signal: NodeJS.Signals, exit: (code: number) => void = (code) => process.exit(code)): Promise<void> {
  const drainMs = getBehaviourConfig().shutdown.drainSeconds * 1000;
  const deadline = Date.now() + drainMs;
  markDraining();
  log.info("shutting down: new runs are refused, runs in progress get time to finish", { signal, drainSeconds: drainMs / 1000 });
  const [, runs] = await Promise.all([
    stopJobRunner({ graceMs: drainMs }).catch((error: unknown) => log.error("the job runner did not stop cleanly", { error })),
    drainRuns({ deadline }),
  ]);
  log.info("shut down", { runsFinished: runs.finished, runsHandedOver: runs.handedOver });
  await Promise.race([stopTracing().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  await disconnectDatabase().catch(() => {});
  exit(0);
}

// One set of handlers per process, whichever module graph installs them.
const state = processSingleton("app.shutdown", (): { installed?: boolean; first?: { signal: NodeJS.Signals; at: number } } => ({}));

/** Installed once per process by instrumentation.ts (production servers started by the launcher). */
export function installShutdownHandlers(): void {
  if (state.installed) return;
  state.installed = true;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!state.first) {
      state.first = { signal, at: Date.now() };
      void drainAndExit(signal);
      return;
    }
    if (state.first.signal === signal && Date.now() - state.first.at < SAME_SIGNAL_MS) return;
    log.warn("second signal: exiting without waiting for runs", { signal });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
