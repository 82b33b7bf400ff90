import { randomUUID } from "node:crypto";
import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { isRunStopped, RunStopped } from "@/lib/agent/stop-reasons";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { configuredProviders } from "@/lib/providers/registry";
import { stepKey } from "@/lib/sessions/sessions";
import { runChild } from "./child-runs";
import { claimForInput } from "./claim-for-input";
import { isDraining } from "./drain-state";
import { recordRunEnd } from "./end-run";
import { runEventBus } from "./event-bus";
import { executeAgentRun } from "./execute-agent-run";
import { createLocalRun, endLocalRun, followLocalRun, localRunCount, publishLocal, waitForRun, watchLocalRun } from "./local-runs";
import { requireProviders } from "./require-providers";
import { noteRunRefused, observeRun } from "./run-observers";
import { ensureHeartbeat } from "./run-lease";
import { createRunRecorder } from "./run-recorder";
import { resolveRun } from "./run-settings";
import type { TRunEvent, TRunLimits, TStartRunOptions } from "./run-types";

/**
 * The one entry point that starts a run, whatever triggered it. Its lifecycle, one file a stage:
 * claim the session (claim-for-input.ts, one statement), resolve the run's settings
 * (run-settings.ts), execute the agent loop (execute-agent-run.ts) detached from the caller, and
 * record the end (end-run.ts). An HTTP response, a job or a parent agent only follows the run's
 * events (follow-run.ts), so a closed tab never stops it. Stop, the run's time limit, a parent's
 * stop or a lost lease abort it.
 */
const log = createLogger("run");

/** Sub-agents may start sub-agents, but not without end. */
const MAX_RUN_DEPTH = 2;

/**
 * Starts a run and returns at once with its id; follow it with followRun / followSession, wait
 * for it with waitForRun. Refused (before anything is written) when no provider is configured or
 * the session cannot be claimed.
 */
export type TStartedRun = {
  runId: string;
  sessionId: string;
  /** Follows this run's events from its first one, even if it has already ended meanwhile. */
  follow: (signal?: AbortSignal) => AsyncIterable<TRunEvent>;
  /** The same events pushed in batches (local-runs.ts, watchLocalRun); returns a function that stops. */
  watch: (onEvents: (events: TRunEvent[], done: boolean) => void, signal?: AbortSignal) => () => void;
};

export async function startRun(options: TStartRunOptions): Promise<TStartedRun> {
  const { session, input } = options;
  const providers = requireProviders(options.providers ?? configuredProviders());
  if ((options.depth ?? 0) > MAX_RUN_DEPTH) throw new AppError("conflict", `Sub-agents may nest at most ${MAX_RUN_DEPTH} levels deep.`);
  const { maxConcurrent } = getBehaviourConfig().runs;
  // Refused before anything is written: a run either starts and finishes, or never starts.
  if (isDraining()) {
    noteRunRefused("draining");
    throw new AppError("unavailable", "This server is restarting. Try again in a few seconds.", { headers: { "retry-after": "5" } });
  }
  if (localRunCount() >= maxConcurrent) {
    noteRunRefused("process_limit");
    throw new AppError("unavailable", `The server is running as many conversations as it can (${maxConcurrent}). Try again in a few seconds.`, { headers: { "retry-after": "5" } });
  }
  const runId = randomUUID();
  const claim = await claimForInput(session, input, runId, options.parentStepId);

  const controller = new AbortController();
  const trigger = options.trigger ?? "web";
  const run = createLocalRun({ id: runId, sessionId: session.id, userId: session.userId, trigger, controller });
  run.observed = { runId, sessionId: session.id, trigger, depth: options.depth ?? 0, inputKind: input.kind, runProfile: claim.runProfile, callerStepId: options.callerStepId ?? options.parentStepId };
  run.observe = observeRun(run.observed);
  runEventBus().attach(run);
  publishLocal(run, { type: "run-start", runId, sessionId: session.id, userStep: input.kind === "message" && claim.firstStep ? stepKey(claim.firstStep.seq) : undefined });
  ensureHeartbeat();
  let timeout: NodeJS.Timeout | undefined;
  let limits: TRunLimits | undefined = options.limits;
  const onParentAbort = () => controller.abort(isRunStopped(options.parentSignal?.reason) ? options.parentSignal.reason : new RunStopped("user"));
  if (options.parentSignal?.aborted) onParentAbort();
  else options.parentSignal?.addEventListener("abort", onParentAbort, { once: true });
  const recorder = createRunRecorder(session, { prewrittenModelStep: claim.modelStep });

  run.finished = (async (): Promise<TAgentOutcome> => {
    let outcome: TAgentOutcome;
    try {
      const resolved = await resolveRun(options, claim, providers);
      limits = resolved.limits;
      if (limits.timeoutMs) {
        timeout = setTimeout(() => controller.abort(new RunStopped("timeout")), limits.timeoutMs);
        timeout.unref?.();
      }
      outcome = await executeAgentRun({
        start: options,
        run,
        claim,
        resolved,
        recorder,
        startChildRun: (options.depth ?? resolved.settings?.depth ?? 0) < MAX_RUN_DEPTH ? (request, context) =>
          runChild({ parent: session, allowedOrigins: claim.allowedOrigins, depth: context.depth, signal: controller.signal, providers: options.providers, tools: context.tools, request, callerStepId: context.callerStepId, startRun, waitForRun }) : undefined,
      });
    } catch (error) {
      log.error("run crashed", { sessionId: session.id, error });
      outcome = { status: "failed", error: error instanceof AppError ? error.message : "The run failed unexpectedly. Try again; if it keeps happening, tell an administrator." };
    }
    run.finishing = true;
    clearTimeout(timeout);
    options.parentSignal?.removeEventListener("abort", onParentAbort);
    await recordRunEnd({ session, runId, claim, outcome, limits, recorder });
    publishLocal(run, { type: "run-end", outcome });
    endLocalRun(run);
    return outcome;
  })();
  return { runId, sessionId: session.id, follow: (signal) => followLocalRun(run, signal), watch: (onEvents, signal) => watchLocalRun(run, onEvents, signal) };
}
