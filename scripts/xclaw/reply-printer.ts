import type { TApprovalView, TChatUsage, TSessionAction } from "../../lib/wire/chat";
import { approvalLines } from "./approval-view";
import type { TChatChunk } from "./chat-stream";
import { type TTerminalWriter } from "./terminal-style";
import { callText, durationText, resultText } from "./tool-card-text";

/**
 * One reply stream, shown as it arrives: text token by token, each tool call as a compact card
 * whose state follows it (⚙ called, ✓ done, ✗ failed, ⏸ waits for approval with the preview),
 * notices, a failed run's error. What the reply came to is kept for the command (the answer, a
 * pending approval, a slash command's "open that session").
 */
export type TReplyOutcome = {
  /** Every text part that was kept, in order (text a failed provider attempt produced is not). */
  text: string;
  /** The text after the last tool call: the final answer a script wants. */
  answer: string;
  /** The newest approval the reply asked for. */
  approval?: TApprovalView;
  /** A failed run's error. */
  error?: string;
  action?: TSessionAction;
  model?: string;
  usage?: TChatUsage;
};

export type TReplyPrinter = { handle(chunk: TChatChunk): void; note(text: string): void; outcome(): TReplyOutcome };

export function createReplyPrinter(options: {
  /** Where the text streams; undefined keeps it for the outcome only (`xclaw run` prints the answer at the end). */
  text?: TTerminalWriter;
  /** Where cards, approvals and notices go. */
  progress: TTerminalWriter;
  /** Calls already shown by an earlier stream of this chat: an approved call's continuation repeats it. */
  knownCalls?: Set<string>;
}): TReplyPrinter {
  const { progress } = options;
  const paint = progress.paint;
  const parts = new Map<string, string>();
  const order: string[] = [];
  const discarded = new Set<string>();
  let answerFrom = 0;
  const calls = new Map<string, string>();
  const knownCalls = options.knownCalls ?? new Set<string>();
  const lastProgress = new Map<string, string>();
  const outcome: Omit<TReplyOutcome, "text" | "answer"> = {};

  const card = (text: string) => progress.line(`  ${text}`);
  const handle = (chunk: TChatChunk) => {
    switch (chunk.type) {
      case "text-start":
        parts.set(chunk.id, "");
        order.push(chunk.id);
        break;
      case "text-delta":
        parts.set(chunk.id, (parts.get(chunk.id) ?? "") + chunk.delta);
        options.text?.write(chunk.delta);
        break;
      case "text-end":
        break;
      case "tool-input-available":
        calls.set(chunk.toolCallId, chunk.toolName);
        answerFrom = order.length;
        if (knownCalls.has(chunk.toolCallId)) break;
        knownCalls.add(chunk.toolCallId);
        card(`${paint("cyan", "⚙")} ${paint("bold", chunk.toolName)} ${paint("dim", callText(chunk.input))}`.trimEnd());
        break;
      case "tool-output-available": {
        const result = resultText(chunk.output);
        const name = calls.get(chunk.toolCallId) ?? "tool";
        const meta = [result.step, result.durationMs === undefined ? undefined : durationText(result.durationMs)].filter(Boolean).join(" · ");
        card(`${result.isError ? paint("red", "✗") : paint("green", "✓")} ${paint("bold", name)}${meta ? paint("dim", ` · ${meta}`) : ""}${result.summary ? `: ${result.summary}` : ""}`);
        answerFrom = order.length;
        break;
      }
      case "tool-output-error":
        card(`${paint("red", "✗")} ${paint("bold", calls.get(chunk.toolCallId) ?? "tool")}: ${chunk.errorText}`);
        break;
      case "data-approval":
        outcome.approval = chunk.data;
        if (chunk.data.status === "pending") {
          card(`${paint("yellow", "⏸")} ${paint("bold", chunk.data.toolName)} waits for your approval`);
          for (const line of approvalLines(chunk.data, paint)) progress.line(line);
        }
        break;
      case "data-progress": {
        // Progress replaces itself on the web card; here a line is added only when it says something new.
        if (lastProgress.get(chunk.data.toolCallId) === chunk.data.text) break;
        lastProgress.set(chunk.data.toolCallId, chunk.data.text);
        card(paint("dim", `  … ${chunk.data.text}`));
        break;
      }
      case "data-text-discard":
        discarded.add(chunk.data.textId);
        if (options.text) options.text.line(paint("dim", "(the text above is discarded: the provider failed midway, the next attempt follows)"));
        break;
      case "data-notice": {
        const tone = chunk.data.tone === "error" ? "red" : chunk.data.tone === "warning" ? "yellow" : "dim";
        progress.line(paint(tone, chunk.data.text));
        break;
      }
      case "data-session":
        outcome.action = chunk.data;
        break;
      case "message-metadata":
        if (chunk.messageMetadata.model) outcome.model = `${chunk.messageMetadata.provider ?? ""}${chunk.messageMetadata.provider ? ":" : ""}${chunk.messageMetadata.model}`;
        if (chunk.messageMetadata.usage) outcome.usage = chunk.messageMetadata.usage;
        break;
      case "error":
        outcome.error = chunk.errorText;
        progress.line(paint("red", `The run failed: ${chunk.errorText}`));
        break;
      case "finish":
        options.text?.endLine();
        break;
      default:
        break;
    }
  };
  return {
    handle,
    note: (text) => progress.line(paint("dim", text)),
    outcome() {
      const kept = (ids: string[]) => ids.filter((id) => !discarded.has(id)).map((id) => parts.get(id) ?? "").join("");
      return { ...outcome, text: kept(order), answer: kept(order.slice(answerFrom)) };
    },
  };
}
