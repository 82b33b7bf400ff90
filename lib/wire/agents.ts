import type { TApprovalView } from "./chat";

/**
 * Multi-agent wire types (types only, so client components may import them): the agent list, and
 * what a delegate / debate / pipeline card shows — live from the tool's progress detail, and after
 * the call from its JSON result.
 */
export type TAgentScope = "global" | "mine";

/** One entry of GET /api/agents. */
export type TAgentSummary = {
  name: string;
  description: string;
  scope: TAgentScope;
  bundled: boolean;
  /** The profile's row (global or own); null for bundled agents. */
  id: string | null;
};

export type TWorkerStatus = "queued" | "running" | "paused" | "completed" | "failed" | "timed_out" | "cancelled";

/** A worker's pending approval, decided on the parent's card (POST to the worker's session). */
export type TWorkerApproval = TApprovalView;

export type TWorkerView = {
  index: number;
  agent: string;
  status: TWorkerStatus;
  /** The worker's session (its trace); null until its job has created it. */
  sessionId: string | null;
  /** What it is writing or doing now. */
  live?: string;
  /** Its reply: summary_data, or its text when the reply was not the JSON contract. */
  summary?: unknown;
  /** The worker's own verdict ("error" when it could not do the task). */
  replyStatus?: "success" | "error";
  /** Files it delivered: shared/<task>/… */
  artifacts: string[];
  error?: string | null;
  approval?: TWorkerApproval;
  inputTokens: number;
  outputTokens: number;
};

export type TAgentCallKind = "delegate" | "debate" | "pipeline";

/** The progress detail of a running delegate / debate / pipeline / agent_results call. */
export type TAgentsCardDetail = { kind: TAgentCallKind; workers: TWorkerView[] };

/** One worker in a call's result, as the model reads it (snake_case: it is the seeds' contract). */
export type TWorkerResult = {
  agent: string;
  status: "success" | "error" | "timeout" | "cancelled";
  summary: unknown;
  artifact_pointers: Record<string, string>;
  session: string | null;
  error?: string;
  tokens: { input: number; output: number };
};

/** A global or own agent profile as the agents pages edit it. */
export type TAgentProfileView = {
  id: string;
  name: string;
  description: string;
  systemPrompt: string;
  allowedTools: string[];
  model: string | null;
  maxIterations: number | null;
  timeoutSeconds: number | null;
  mayDelegate: boolean;
  scope: TAgentScope;
  updatedAt: string;
};
