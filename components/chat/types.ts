/**
 * The chat's types. Everything that crosses the wire comes from lib/wire (chat.ts, approvals.ts,
 * providers.ts), the wire types shared with the server (imported as types only, so nothing
 * server-side reaches the browser); the rest is the chat page's own.
 */
import type { DynamicToolUIPart } from "ai";
import type { TApprovalView, TChatMessage, TSessionView } from "@/lib/wire/chat";

export type {
  TApprovalView,
  TAttachmentView,
  TChatDataParts,
  TChatMessage,
  TChatMetadata,
  TChatPart,
  TChatUsage,
  TNoticeKind,
  TNoticeTone,
  TSessionAction,
  TSessionSummary,
  TStepRow,
  TToolOutputView,
} from "@/lib/wire/chat";
/** `alwaysAllowSite`: allow the site the card names (the server takes it from the stored card, never from here). */
export type { TApprovalDecision } from "@/lib/wire/approvals";
export type { TModelChoice, TProviderStatus } from "@/lib/wire/providers";

export type TChatSession = TSessionView["session"];

/** A decision made on this page, shown until the stored history catches up. */
export type TLocalDecision = { status: "approved" | "denied"; reason?: string };

export type TToolPart = DynamicToolUIPart;

/** The approval a tool call waited for, as this page knows it. */
export type TToolApproval = { view: TApprovalView; decided?: TLocalDecision };

export type TMessageRole = TChatMessage["role"];
