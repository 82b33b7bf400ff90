import type { UIMessage } from "ai";

/**
 * The chat's UI message shape: the parts the server streams (lib/sessions/ui-stream.ts) and
 * rebuilds from steps (lib/sessions/history.ts). Kept here because components never import
 * server code; the page converts at the boundary.
 */
export type TNoticeTone = "info" | "warning" | "error";

export type TChatDataParts = {
  notice: { text: string; tone: TNoticeTone };
  step: { key: string; kind: string };
  /** A provider failed midway: the text part before this one was replaced by the next provider's. */
  discard: { textId: string };
  session: { action: "reload" | "open"; sessionId: string };
  /** Transient: never stored in a message. */
  run: { runId: string; userStep: string | null };
  approval: TApprovalView;
};

export type TChatUsage = { inputTokens: number; outputTokens: number };

export type TChatMetadata = {
  provider?: string | null;
  model?: string | null;
  usage?: TChatUsage;
  step?: string;
};

export type TChatMessage = UIMessage<TChatMetadata, TChatDataParts>;

/** What the tool cards read from a dynamic tool part's output (see ui-stream.ts `tool-end`). */
export type TToolOutput = { text?: string; isError?: boolean; durationMs?: number | null; step?: string; images?: string[] };

export type TChatSession = {
  id: string;
  title: string;
  status: "init" | "running" | "paused" | "success" | "failed";
  statusReason: string | null;
  live: boolean;
  interrupted: boolean;
  lastProvider: string | null;
  lastModel: string | null;
  parentSessionId: string | null;
  forkedFromStep: string | null;
};

export type TProviderInfo = { name: string; model: string; configured: boolean };

export type TStepRow = {
  key: string;
  type: "user_input" | "model_call" | "tool_call" | "system_note";
  name: string;
  status: "running" | "completed" | "failed";
  input: unknown;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  model: string | null;
  error: string | null;
};

/** A tool call waiting for (or past) the owner's decision: the server's own type (types only, erased). */
import type { TApprovalView } from "@/lib/sessions/history";

export type { TApprovalView };

export type TApprovalDecision = { decision: "approve" | "deny"; alwaysAllow?: boolean };
