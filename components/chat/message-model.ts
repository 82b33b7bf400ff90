import type { TApprovalView, TAttachmentView, TChatMessage, TChatPart, TToolOutputView, TToolPart } from "./types";

/**
 * What the chat shows, derived from the messages useChat holds (live) or the server rebuilt from
 * steps (after a reload). Pure functions, so the rules are tested without a browser
 * (tests/unit/chat-message-model.test.ts).
 */

export function messageText(message: TChatMessage | undefined): string {
  return message ? message.parts.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
}

export function messageAttachments(message: TChatMessage): TAttachmentView[] {
  return message.parts.flatMap((part) => (part.type === "data-attachment" ? [part.data] : []));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A dynamic tool part's output is `unknown` to the AI SDK; ours is a TToolOutputView
 * (lib/channels/web/tool-output-view.ts), or plain text from older rows. Checked, not cast.
 */
export function readToolOutput(part: TToolPart): Partial<TToolOutputView> | undefined {
  if (part.state !== "output-available") return undefined;
  const output: unknown = part.output;
  if (typeof output === "string") return { text: output };
  if (!isRecord(output)) return undefined;
  return {
    text: typeof output.text === "string" ? output.text : undefined,
    isError: output.isError === true,
    durationMs: typeof output.durationMs === "number" ? output.durationMs : null,
    step: typeof output.step === "string" ? output.step : undefined,
    images: Array.isArray(output.images) ? output.images.filter((image): image is string => typeof image === "string" && image.startsWith("data:image/")) : undefined,
  };
}

/** An approval preview's fields, each checked (the preview is whatever the tool put on the card). */
export type TApprovalPreview = { title?: string; command?: string; path?: string; diff?: string; detail?: string; origin?: string };

/** An http(s) origin as URL writes it, or nothing: the card only offers to allow a real site. */
function webOrigin(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value ? value : undefined;
  } catch {
    return undefined;
  }
}

export function readApprovalPreview(preview: unknown): TApprovalPreview {
  if (!isRecord(preview)) return {};
  const text = (key: string) => {
    const value = preview[key];
    return typeof value === "string" && value ? value : undefined;
  };
  return { title: text("title"), command: text("command"), path: text("path"), diff: text("diff"), detail: text("detail"), origin: webOrigin(preview.origin) };
}

/**
 * Every tool call in the conversation, by call id. While a run that continues after an approval is
 * followed live, its events arrive as a second assistant message that repeats the call; the call
 * is shown once, where it first appeared, with its newest state, approval and progress.
 */
export type TToolEntry = {
  /** The newest part for the call (a result beats a bare call). */
  part: TToolPart;
  /** Where the card is drawn: the first message and part index that mention the call. */
  messageId: string;
  partIndex: number;
  approval?: TApprovalView;
  /** `detail`: what a tool's own card draws (the multi-agent card's workers). */
  progress?: { text: string; fraction?: number; detail?: unknown };
};

export function buildToolIndex(messages: TChatMessage[]): Map<string, TToolEntry> {
  const index = new Map<string, TToolEntry>();
  for (const message of messages) {
    message.parts.forEach((part, partIndex) => {
      if (part.type === "dynamic-tool") {
        const known = index.get(part.toolCallId);
        if (!known) index.set(part.toolCallId, { part, messageId: message.id, partIndex });
        else if (part.state === "output-available" || part.state === "output-error" || (known.part.state !== "output-available" && known.part.state !== "output-error")) known.part = part;
      }
    });
  }
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === "data-approval") {
        const entry = index.get(part.data.toolCallId);
        // The newest view of the approval wins (a reload shows it decided).
        if (entry) entry.approval = part.data;
      } else if (part.type === "data-progress") {
        const entry = index.get(part.data.toolCallId);
        if (entry) entry.progress = { text: part.data.text, fraction: part.data.fraction, detail: part.data.detail };
      }
    }
  }
  return index;
}

/** The approval still waiting for the owner, if any (newest first). */
export function pendingApproval(messages: TChatMessage[], decided: Readonly<Record<string, unknown>>): TApprovalView | undefined {
  for (let m = messages.length - 1; m >= 0; m--) {
    const parts = messages[m]!.parts;
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p]!;
      if (part.type === "data-approval") return part.data.status === "pending" && !decided[part.data.approvalId] ? part.data : undefined;
    }
  }
  return undefined;
}

/**
 * Which parts of an assistant message are not drawn:
 * - text a provider produced before it failed (`data-text-discard` follows it);
 * - a notice that repeats the one just before it (a failed step and its note can say the same);
 * - a provider retry notice once anything came after it, or once the reply is finished (it was
 *   news only while the run was still trying; the reply or the final error says how it ended);
 * - a repeated tool call (drawn where it first appeared, see buildToolIndex), and an approval whose
 *   call has a card (the card shows it).
 */
export function hiddenParts(message: TChatMessage, tools: Map<string, TToolEntry>, active = false): Set<number> {
  const hidden = new Set<number>();
  let lastText: number | undefined;
  let lastNotice: { text: string; index: number } | undefined;
  message.parts.forEach((part, index) => {
    if (part.type === "text") lastText = index;
    else if (part.type === "data-text-discard" && lastText !== undefined) {
      hidden.add(lastText);
      lastText = undefined;
    }
    if (part.type === "data-notice") {
      const normalized = part.data.text.trim().replace(/\.$/, "").toLowerCase();
      if (normalized === lastNotice?.text) hidden.add(lastNotice.index);
      lastNotice = { text: normalized, index };
    } else if (part.type !== "data-step" && part.type !== "step-start") lastNotice = undefined;
    if (part.type === "dynamic-tool") {
      const entry = tools.get(part.toolCallId);
      if (entry && (entry.messageId !== message.id || entry.partIndex !== index)) hidden.add(index);
    }
    if (part.type === "data-approval" && tools.has(part.data.toolCallId)) hidden.add(index);
  });
  const lastShown = lastVisibleIndex(message, hidden);
  message.parts.forEach((part, index) => {
    if (part.type === "data-notice" && part.data.kind === "retry" && (!active || index !== lastShown)) hidden.add(index);
  });
  return hidden;
}

function drawn(part: TChatPart): boolean {
  return part.type === "text" ? part.text.trim() !== "" : part.type === "dynamic-tool" || part.type === "data-notice" || part.type === "data-approval";
}

function lastVisibleIndex(message: TChatMessage, hidden: Set<number>): number {
  for (let index = message.parts.length - 1; index >= 0; index--) if (!hidden.has(index) && drawn(message.parts[index]!)) return index;
  return -1;
}

/** Whether anything of the message is drawn (else the "thinking" dots stand in for it). */
export function hasVisibleContent(message: TChatMessage, hidden: Set<number>): boolean {
  return lastVisibleIndex(message, hidden) >= 0;
}

/** The text of the whole reply, for Copy: its Markdown, without discarded attempts. */
export function replyText(messages: TChatMessage[], tools: Map<string, TToolEntry>): string {
  return messages
    .flatMap((message) => {
      const hidden = hiddenParts(message, tools);
      return message.parts.flatMap((part, index) => (part.type === "text" && !hidden.has(index) && part.text.trim() ? [part.text.trim()] : []));
    })
    .join("\n\n");
}

/**
 * The conversation as turns for display: a person's message and the assistant messages that
 * answer it. Consecutive assistant messages (a paused run and its continuation) form one reply.
 */
export type TTurnItem = { kind: "user"; message: TChatMessage } | { kind: "reply"; messages: TChatMessage[] };

export function groupReplies(messages: TChatMessage[]): TTurnItem[] {
  const items: TTurnItem[] = [];
  for (const message of messages) {
    if (message.role === "user") items.push({ kind: "user", message });
    else if (message.role === "assistant") {
      const last = items.at(-1);
      if (last?.kind === "reply") last.messages.push(message);
      else items.push({ kind: "reply", messages: [message] });
    }
  }
  return items;
}
