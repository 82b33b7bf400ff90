import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { STOP_REASONS } from "@/lib/agent/stop-reasons";
import { runEnded } from "@/lib/capabilities/installed-capabilities";
import { createLogger } from "@/lib/observability/logger";
import { recordStep } from "@/lib/sessions/steps";
import type { TClaimed } from "./claim-for-input";
import { releaseSessionClaim } from "./claim-session";
import { INTERRUPTED } from "./run-lease";
import type { TRunRecorder } from "./run-recorder";
import type { TRunLimits, TSessionRef } from "./run-types";

/**
 * A run's end, written in order: the unused model step closed, a note for a stop, the session's
 * final state (which frees it for the next claim), then the capabilities' follow-up work.
 */
const log = createLogger("run");

const STOP_NOTES: Record<string, string> = {
  user: "Stopped by the user.",
  timeout: "Stopped: the run reached its time limit.",
  shutdown: "Stopped: the server is shutting down. Press Resume to continue.",
  handover: "The server restarted during this run: another server process continues it from here.",
};

function finalState(outcome: TAgentOutcome, limits: TRunLimits | undefined) {
  switch (outcome.status) {
    case "completed":
      return { status: "SUCCESS" as const, statusReason: null };
    case "max-iterations":
      return { status: "SUCCESS" as const, statusReason: "stopped at the iteration limit" };
    case "paused":
      return { status: "PAUSED" as const, statusReason: "waiting for approval" };
    case "stopped":
      // Left for another process to resume (drain.ts): the same state a crash leaves, which Resume accepts.
      if (outcome.reason === "handover") return { status: "FAILED" as const, statusReason: INTERRUPTED };
      return { status: "FAILED" as const, statusReason: outcome.reason === "timeout" && limits?.timeoutMs ? `stopped at the time limit (${Math.round(limits.timeoutMs / 1000)} s)` : STOP_REASONS[outcome.reason] };
    case "failed":
      return { status: "FAILED" as const, statusReason: outcome.error };
  }
}

export async function recordRunEnd(options: { session: TSessionRef; runId: string; claim: TClaimed; outcome: TAgentOutcome; limits: TRunLimits | undefined; recorder: TRunRecorder }): Promise<void> {
  const { session, runId, claim, outcome, recorder } = options;
  // Another process took this session over: its state is no longer ours to write.
  if (outcome.status === "stopped" && outcome.reason === "leaseLost") return;
  try {
    await recorder.closeUnusedModelStep(outcome.status === "stopped" ? STOP_REASONS[outcome.reason] : outcome.status === "failed" ? outcome.error : "not called");
    const note = outcome.status === "stopped" ? STOP_NOTES[outcome.reason] : undefined;
    if (note) await recordStep({ sessionId: session.id, userId: session.userId, type: "SYSTEM_NOTE", name: "stop", status: "COMPLETED", input: { text: note, tone: "warning" } });
    await releaseSessionClaim({ session, runId, ...finalState(outcome, options.limits) });
  } catch (error) {
    log.error("could not record the end of a run", { sessionId: session.id, error });
  }
  // Follow-up work (memory extraction) runs after the end is recorded, never before a first token.
  runEnded({ userId: session.userId, sessionId: session.id, runProfile: claim.runProfile, sessionTrigger: claim.sessionTrigger, status: outcome.status }).catch((error: unknown) =>
    log.warn("capabilities could not follow up a run's end", { sessionId: session.id, error }),
  );
}
