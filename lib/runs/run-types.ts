import type { TAgentEvent, TAgentOutcome, TPrepareStep, TAgentSubscriber } from "@/lib/agent/agent-types";
import type { TProvider } from "@/lib/providers/types";
import type { TMessageAttachment } from "@/lib/sessions/user-content";
import type { ToolRegistry } from "@/lib/tools/registry";
import type { TRunTriggerName } from "@/lib/wire/chat";

/**
 * The run core's vocabulary. A run is one execution of the agent loop for one session, started by
 * any trigger (a person in the web chat, a job, a webhook, a channel, a parent agent) and followed
 * or stopped from any process.
 */
export type TRunEvent = TAgentEvent | { type: "run-start"; runId: string; sessionId: string; userStep?: string } | { type: "run-end"; outcome: TAgentOutcome };

export type TRunTrigger = TRunTriggerName;

/** The session a run belongs to: its id and its owner (every query filters by both). */
export type TSessionRef = { id: string; userId: string };

/** What starts a run. */
export type TRunInput =
  /** A person's message (web chat, a channel), with the files they attached (lib/sessions/attachments.ts). */
  | { kind: "message"; text: string; attachments?: TMessageAttachment[] }
  /** A task written by the system: a scheduled job's prompt, a webhook's triage, a parent agent's task. */
  | { kind: "prompt"; text: string }
  /** Continue a run a crash interrupted. */
  | { kind: "resume" }
  /** The owner's decision on a pending tool call (already recorded when the run starts). */
  | {
      kind: "approval";
      approvalId: string;
      decision: "approve" | "deny";
      reason?: string;
      /** The approval outlived its deadline: recorded as EXPIRED, acted on as a denial. */
      expired?: boolean;
      /** "Always allow this tool in this session", recorded with the decision. */
      alwaysAllowTool?: string;
      /** "Always allow this site in this session": the origin the approved call sends data to. */
      alwaysAllowOrigin?: string;
    };

/** Limits one run works under; unset fields take the xclaw.yaml defaults. */
export type TRunLimits = {
  maxIterations?: number;
  /** The notice when maxIterations is hit ("step limit reached, job stopped" for scheduled runs). */
  iterationLimitNotice?: string;
  /** Tool names this run may use; the others are not even offered to the model. */
  allowedTools?: string[];
  /** The run is stopped after this long. */
  timeoutMs?: number;
  /**
   * "ask": calls that need approval pause the run for the owner (interactive runs). "deny": nobody
   * is there to ask (scheduled and webhook runs), so such calls are denied and recorded.
   */
  approvals?: "ask" | "deny";
  /** Added to the system prompt for this run (a job's mode, an agent profile's role). */
  instructions?: string;
};

export type TStartRunOptions = {
  session: TSessionRef;
  input: TRunInput;
  trigger?: TRunTrigger;
  limits?: TRunLimits;
  /** How many parents this run has (0 for a top-level run); children are refused past the limit. */
  depth?: number;
  /** Stops this run when it aborts (a parent run's signal). */
  parentSignal?: AbortSignal;
  /** The parent's step this run's first step hangs under (a worker's under its delegate call). */
  parentStepId?: string;
  /** The tool call that started this run (a sub-agent's delegating call): for traces only, writes nothing. */
  callerStepId?: string;
  prepareStep?: TPrepareStep;
  /** Extra subscribers to the run's events (metrics, notifications); the event log is always one. */
  subscribers?: TAgentSubscriber[];
  /** Tests inject providers and tools; the app uses the configured ones. */
  providers?: TProvider[];
  tools?: ToolRegistry;
};
