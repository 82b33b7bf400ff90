import { RunStopped } from "@/lib/agent/stop-reasons";
import { sendEvent } from "@/lib/jobs/send-event";
import { createLogger } from "@/lib/observability/logger";
import { allLocalRuns, type TLocalRun } from "./local-runs";
import { RESUME_HANDED_OVER_EVENT } from "./run-jobs";

/**
 * The run core's part of a graceful shutdown (lib/app/shutdown.ts runs it on SIGTERM): runs in
 * progress get until the deadline to finish; those still going are stopped, recorded as
 * interrupted (end-run.ts) and, when a person is waiting for them (web, channel, API), handed to
 * another process through the jobs layer, which resumes them there. Runs started by jobs are not
 * handed over here: their job is released and retried elsewhere, and resumes its own run.
 */
const log = createLogger("run");

/** Triggers whose runs nobody else would continue: a job retries its own, a parent agent its child. */
const HANDED_OVER_TRIGGERS = new Set(["web", "channel", "api"]);

async function settle(runs: TLocalRun[], until: number): Promise<void> {
  const left = Math.max(0, until - Date.now());
  await Promise.race([Promise.allSettled(runs.map((run) => run.finished)), new Promise((resolve) => setTimeout(resolve, left).unref())]);
}

export async function drainRuns(options: { deadline: number; stopGraceMs?: number }): Promise<{ finished: number; handedOver: number }> {
  const started = allLocalRuns();
  await settle(started, options.deadline);
  const remaining = allLocalRuns().filter((run) => !run.done);
  for (const run of remaining) run.controller.abort(new RunStopped("handover"));
  // The stopped runs record their end (a few statements each) before the process may exit.
  await settle(remaining, Date.now() + (options.stopGraceMs ?? 5_000));
  const handOver = remaining.filter((run) => HANDED_OVER_TRIGGERS.has(run.trigger));
  if (handOver.length) {
    try {
      await sendEvent(handOver.map((run) => ({ name: RESUME_HANDED_OVER_EVENT, id: `handover:${run.id}`, data: { sessionId: run.sessionId, userId: run.userId } })));
    } catch (error) {
      log.error("could not hand runs over to another process; they can be resumed by hand", { sessions: handOver.map((run) => run.sessionId), error });
    }
  }
  return { finished: started.length - remaining.length, handedOver: handOver.length };
}
