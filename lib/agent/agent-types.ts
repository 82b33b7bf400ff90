import type { TRetryPolicy } from "@/lib/providers/provider-chain";
import type { TContentPart, TFinishReason, TMessage, TProvider, TToolCall, TToolDefinition, TUsage } from "@/lib/providers/types";
import type { TWorkspaceScope } from "@/lib/sandbox/types";
import type { TChildRunRequest, TChildRunResult, ToolRegistry, TTool, TToolPreview, TToolProgress } from "@/lib/tools/registry";
import type { TStopReason } from "./stop-reasons";

/** What the loop tells its subscribers (the run core, which fans out to channels and metrics). */
export type TAgentEvent =
  | { type: "model-start"; stepId: string; stepKey: string; iteration: number }
  | { type: "attempt"; provider: string; model: string; attempt: number }
  | { type: "attempt-failed"; provider: string; model: string; error: string; willRetry: boolean }
  | { type: "text-delta"; text: string }
  | { type: "text-discard" }
  | { type: "model-end"; stepId: string; stepKey: string; provider: string; model: string; usage: TUsage; finishReason?: TFinishReason }
  | { type: "tool-start"; stepId: string; stepKey: string; call: TToolCall }
  | { type: "tool-progress"; stepId: string; callId: string; progress: TToolProgress }
  | { type: "tool-end"; stepId: string; stepKey: string; callId: string; content: TContentPart[]; isError: boolean; durationMs: number }
  | { type: "notice"; text: string; tone: "info" | "warning" | "error" }
  | { type: "approval-request"; approvalId: string; stepKey: string; call: TToolCall; risk: string; preview: TToolPreview; expiresAt: string };

export type TAgentOutcome =
  | { status: "completed"; text: string }
  | { status: "max-iterations"; text: string }
  | { status: "stopped"; reason: TStopReason }
  | { status: "paused"; approvalId: string }
  | { status: "failed"; error: string };

/** A recorded step: its row id and its per-session key (s0001). */
export type TStepHandle = { id: string; key: string };

/** Persistence hooks; the run core implements them with step rows. */
export type TAgentRecorder = {
  modelCallStarted(info: { iteration: number }): Promise<TStepHandle>;
  modelCallFinished(step: TStepHandle, result: { text: string; toolCalls: TToolCall[]; usage: TUsage; provider: string; model: string; context?: TContextReport }): Promise<void>;
  /** `partialText`: what had streamed before the failure or stop, kept for the person reading. */
  modelCallFailed(step: TStepHandle, error: string, partialText?: string): Promise<void>;
  toolCallStarted(call: TToolCall, parent: TStepHandle): Promise<TStepHandle>;
  toolCallFinished(step: TStepHandle, result: { content: TContentPart[]; isError: boolean; durationMs: number }): Promise<void>;
  note(text: string): Promise<void>;
  /** Records a pending approval for a tool call whose step is already written (RUNNING). */
  approvalRequested(call: TToolCall, step: TStepHandle, details: { risk: string; preview: TToolPreview }): Promise<{ approvalId: string; expiresAt: Date }>;
};

/**
 * Continuing a turn whose tool calls were interrupted by an approval: the call that waited gets the
 * owner's decision, and the calls after it go through the policy as usual.
 */
export type TResumeTurn = {
  modelStep: TStepHandle;
  toolCalls: TToolCall[];
  /** Calls of that turn already finished before the pause. */
  finishedCallIds: Set<string>;
  decided: { callId: string; step: TStepHandle; decision: "approve" | "deny"; reason?: string };
};

/**
 * The policy's answer for one call. `{ deny }` carries the observation the model gets (e.g. a
 * scheduled run that may not ask anyone); plain "deny" is the administrator's policy.
 */
export type TCallDecision = "allow" | "ask" | "deny" | { deny: string };

/**
 * What the context layers did before one model call (lib/context), per layer: tokens counted and
 * saved, results offloaded or masked. Recorded on the model call's step; never sent to a model.
 */
export type TContextReport = Record<string, Record<string, number | string | boolean>>;

/** The model a call most likely goes to (the chain's first) and the window it must fit (the chain's smallest). */
export type TContextTarget = { model: string; contextWindowTokens: number; maxOutputTokens: number };

/**
 * Runs before every model call and may change what the model sees (memory recall and skills add
 * reference data here; the context layers offload and mask tool results). The stable system
 * prompt should stay first so providers can cache it. Only the model's view changes: the loop's
 * own history, and the steps, keep everything.
 */
export type TPrepareStep = (input: {
  iteration: number;
  system: string;
  messages: TMessage[];
  target?: TContextTarget;
  tools?: TToolDefinition[];
  /** Summarises a transcript with the run's own models (context compression). */
  summarize?: (transcript: string) => Promise<string>;
}) => Promise<{ system?: string; messages?: TMessage[]; report?: TContextReport } | void>;

export type TAgentSubscriber = (event: TAgentEvent) => void;

export type TRunAgentOptions = {
  providers: TProvider[];
  retryPolicy: TRetryPolicy;
  tools: ToolRegistry;
  system: string;
  history: TMessage[];
  maxIterations: number;
  /** The notice written when maxIterations is reached (scheduled runs say "step limit reached"). */
  iterationLimitNotice?: string;
  maxParallelTools: number;
  signal: AbortSignal;
  /** Who the tools act for, and how they may start a child run. */
  toolContext: {
    userId: string;
    sessionId: string;
    allowedOrigins?: readonly string[];
    /** `caller`: the step of the tool call that starts it (the loop adds it; traces nest the child under it). */
    startChildRun?: (request: TChildRunRequest, caller?: { stepId: string }) => Promise<TChildRunResult>;
    runId?: string;
    depth?: number;
    approvals?: "ask" | "deny";
    workspace?: TWorkspaceScope;
  };
  recorder: TAgentRecorder;
  /** Every event goes to each subscriber; a subscriber that throws is ignored, never the run's end. */
  subscribers: TAgentSubscriber[];
  prepareStep?: TPrepareStep;
  /** Receives the conversation as the model will see it next, when the run completes. */
  onTranscript?: (messages: TMessage[]) => void;
  /** The approval policy; without one every call is allowed (tests of the bare loop). */
  authorize?: (call: TToolCall, tool: TTool | undefined) => TCallDecision;
  resume?: TResumeTurn;
};
