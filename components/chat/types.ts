/**
 * The chat's types. Everything that crosses the wire comes from lib/wire/chat.ts, the one module
 * of wire types shared with the server (types only, so nothing server-side reaches the browser);
 * the rest is the chat page's own.
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

export type TChatSession = TSessionView["session"];

export type TProviderInfo = { name: string; model: string; configured: boolean };

/** A model people may pick for a chat (GET /api/models, lib/providers/registry.ts). */
export type TModelChoice = { id: string; provider: string; model: string; isDefault: boolean };

/** `alwaysAllowSite`: allow the site the card names (the server takes it from the stored card, never from here). */
export type TApprovalDecision = { decision: "approve" | "deny"; alwaysAllow?: boolean; alwaysAllowSite?: boolean };

/** A decision made on this page, shown until the stored history catches up. */
export type TLocalDecision = { status: "approved" | "denied"; reason?: string };

export type TToolPart = DynamicToolUIPart;

/** The approval a tool call waited for, as this page knows it. */
export type TToolApproval = { view: TApprovalView; decided?: TLocalDecision };

export type TMessageRole = TChatMessage["role"];
