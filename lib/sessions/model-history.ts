import type { Step } from "@/lib/db/generated/client";
import { textOf, type TContentPart, type TMessage } from "@/lib/providers/types";
import { decodeStep, type TDecodedStep } from "./step-codecs";
import { userMessageContent } from "./user-content";

/**
 * Rebuilds what the model saw from the session's steps, so a reloaded, resumed or forked session
 * continues exactly where it was with either provider. Every tool call gets exactly one result:
 * a call whose step is missing (rolled back) or never finished (a crash) is answered with an
 * observation saying so, because providers reject unpaired tool calls and the model must not
 * assume the tool ran. Slash commands and unreadable steps are not part of the conversation.
 */
export const INTERRUPTED_TOOL_OBSERVATION =
  "This tool call was interrupted (the server stopped while it ran) and was NOT re-run. Its effect is unknown: check the current state before trying again.";
const MISSING_TOOL_OBSERVATION = "This tool call has no recorded result (it was rolled back or never ran).";

// Providers may reuse tool-call ids across turns, so a result is found by the model call that
// asked for it and the call id together.
export function toolStepKey(modelStepId: string | null, toolCallId: string): string {
  return `${modelStepId}:${toolCallId}`;
}

export function indexToolSteps(steps: TDecodedStep[]): Map<string, TDecodedStep & { kind: "tool" }> {
  const index = new Map<string, TDecodedStep & { kind: "tool" }>();
  for (const decoded of steps) if (decoded.kind === "tool") index.set(toolStepKey(decoded.step.parentStepId, decoded.input.toolCallId), decoded);
  return index;
}

function toolResult(result: (TDecodedStep & { kind: "tool" }) | undefined): { content: TContentPart[]; isError: boolean } {
  if (!result) return { content: [{ type: "text", text: MISSING_TOOL_OBSERVATION }], isError: true };
  if (result.step.status === "RUNNING" || !result.output) return { content: [{ type: "text", text: INTERRUPTED_TOOL_OBSERVATION }], isError: true };
  return { content: result.output.content, isError: result.output.isError };
}

/**
 * `openCallIds`: calls of an interrupted turn that the caller is about to finish (an approval
 * decision); their results are left for it to append instead of being synthesised.
 */
export function buildHistory(steps: Step[], options: { openCallIds?: Set<string> } = {}): TMessage[] {
  const decoded = steps.map(decodeStep);
  const results = indexToolSteps(decoded);
  const messages: TMessage[] = [];
  for (const entry of decoded) {
    if (entry.kind === "user") {
      messages.push({ role: "user", content: userMessageContent(entry.input.text, entry.input.attachments) });
    } else if (entry.kind === "model" && entry.step.status === "COMPLETED" && entry.output) {
      messages.push({ role: "assistant", text: entry.output.text, toolCalls: entry.output.toolCalls });
      for (const call of entry.output.toolCalls) {
        if (options.openCallIds?.has(call.id)) continue;
        messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, ...toolResult(results.get(toolStepKey(entry.step.id, call.id))) });
      }
    } else if (entry.kind === "tool" && entry.input.bang) {
      // A command the user ran themselves with "!": context for the model, not a call it made.
      const command = (entry.input.arguments as { command?: unknown } | null)?.command;
      const output = entry.output ? textOf(entry.output.content) : "(no output recorded)";
      messages.push({ role: "user", content: [{ type: "text", text: `[I ran a command in my sandbox myself: ${String(command)}]\n${output}` }] });
    } else if (entry.kind === "note" && entry.input.forModel) {
      messages.push({ role: "user", content: [{ type: "text", text: entry.input.text }] });
    }
  }
  return messages;
}
