/**
 * The chat's types. Everything that crosses the wire comes from lib/wire/chat.ts, the one module
 * of wire types shared with the server (types only, so nothing server-side reaches the browser);
 * the rest is the chat page's own.
 */
import type { TSessionView, TToolOutputView } from "@/lib/wire/chat";

export type { TApprovalView, TChatDataParts, TChatMessage, TChatMetadata, TChatUsage, TNoticeTone, TStepRow } from "@/lib/wire/chat";

/** What the tool cards read from a dynamic tool part's output. */
export type TToolOutput = Partial<TToolOutputView>;

export type TChatSession = TSessionView["session"];

export type TProviderInfo = { name: string; model: string; configured: boolean };

/** `alwaysAllowSite`: allow the site the card names (the server takes it from the stored card, never from here). */
export type TApprovalDecision = { decision: "approve" | "deny"; alwaysAllow?: boolean; alwaysAllowSite?: boolean };

