import type { UIMessage } from "ai";
import type { TSessionChannel } from "./channels";

/**
 * The chat's wire types: what the server streams (lib/channels/web/ui-stream.ts), what it rebuilds
 * from stored steps (lib/channels/web/ui-messages.ts) and what the browser renders
 * (components/chat). Types only — no runtime code — so client components may import this module.
 * Dates are ISO strings because that is what JSON carries.
 */
export type TNoticeTone = "info" | "warning" | "error";

export type TRunTriggerName = "web" | "job" | "webhook" | "channel" | "agent" | "api";

/** A tool call waiting for (or past) the owner's decision. */
export type TApprovalView = {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  risk: string;
  preview: unknown;
  status: "pending" | "approved" | "denied" | "expired";
  reason: string | null;
  expiresAt: string;
};

/** What a tool card shows once the call has finished (live and after a reload alike). */
export type TToolOutputView = {
  text: string;
  isError: boolean;
  durationMs: number | null;
  /** The step key, e.g. s0004. */
  step: string;
  /** Screenshots, as data URLs. */
  images?: string[];
};

/** A file attached to a message, stored in the owner's workspace at `path`. `preview`: an image's data URL. */
export type TAttachmentView = { name: string; path: string; mediaType: string; bytes: number; preview?: string };

/** What a slash-command reply asks the chat to do next. */
export type TSessionAction = { action: "reload" | "open"; sessionId: string };

/**
 * What a notice is about, where the chat treats it specially: `retry` (a provider attempt failed
 * and the chain goes on; only news while nothing came after it), `interrupted` (the run was cut off
 * by a restart; the chat offers Resume there).
 */
export type TNoticeKind = "retry" | "interrupted";

export type TChatDataParts = {
  notice: { text: string; tone: TNoticeTone; kind?: TNoticeKind };
  step: { key: string; kind: string };
  /** A provider failed midway: the text part `textId` was replaced by the next attempt's text. */
  "text-discard": { textId: string };
  session: TSessionAction;
  /** Transient: never stored in a message. */
  run: { runId: string; userStep: string | null };
  approval: TApprovalView;
  /** The latest progress of a running tool call (same id as the call, so it replaces itself). */
  progress: { toolCallId: string; text: string; fraction?: number; detail?: unknown };
  /** A file the person attached to their message. */
  attachment: TAttachmentView;
};

export type TChatUsage = { inputTokens: number; outputTokens: number };

export type TChatMetadata = {
  provider?: string | null;
  model?: string | null;
  usage?: TChatUsage;
  step?: string;
};

export type TChatMessage = UIMessage<TChatMetadata, TChatDataParts>;
export type TChatPart = TChatMessage["parts"][number];

export type TSessionStatus = "init" | "running" | "paused" | "success" | "failed";

/** A session in lists (GET /api/sessions, the sidebar). */
export type TSessionSummary = {
  id: string;
  title: string;
  status: TSessionStatus;
  statusReason: string | null;
  trigger: TRunTriggerName;
  /** The session this one was forked from, or the parent agent's session of a worker. */
  parentSessionId: string | null;
  forkedFromStep: string | null;
  lastProvider: string | null;
  lastModel: string | null;
  /** The owner's model choice for this chat ("openai:gpt-4o"), or null for the configured default. */
  model: string | null;
  /** Sessions started from a chat channel (trigger "channel"): which platform and bot account. */
  channel: TSessionChannel | null;
  createdAt: string;
  updatedAt: string;
};

/** A session as the chat page opens it (GET /api/sessions/:id). */
export type TSessionView = {
  session: TSessionSummary & { live: boolean; interrupted: boolean };
  messages: TChatMessage[];
};

export type TStepType = "user_input" | "model_call" | "tool_call" | "system_note" | "command";

/** One row of GET /api/sessions/:id/steps and the steps panel. */
export type TStepRow = {
  id: string;
  key: string;
  seq: number;
  parentStepId: string | null;
  type: TStepType;
  name: string;
  status: "running" | "completed" | "failed";
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  provider: string | null;
  model: string | null;
  /**
   * Multi-agent: the worker sessions that hang under this step (a delegate, debate or pipeline
   * call); `childSessionId` is the first of them. Absent on other steps.
   */
  childSessionId?: string;
  childSessions?: { sessionId: string; agent: string; status: string }[];
};
