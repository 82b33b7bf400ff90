import { z } from "zod";
import { textOf, type TMessage } from "@/lib/providers/types";
import { characterBoundary } from "./offload";

/**
 * Layer 4a, edits the model asks for with `context_edit`: drop a whole turn, truncate a tool
 * result, or replace one with a note. An edit is nothing but its tool call: the call and its
 * result are steps of the session, so the edit is replayed from the history on every later model
 * call (in any process, after a resume), and rolling back its step takes it back. The tool checked
 * the edit when it ran; a refused (error) result is never applied. Edits change only the model's
 * view; the steps keep everything. Never the system prompt (not a message) nor the last
 * `PROTECTED_TAIL` messages of the history the edit was made in (the tool refuses those).
 */
export const CONTEXT_EDIT_TOOL = "context_edit";
export const PROTECTED_TAIL = 3;

// One flat object, not a union: providers require a tool's parameters to be `type: object`.
export const ZContextEditInput = z.object({
  action: z.enum(["delete_turn", "truncate_result", "replace_result"]),
  id: z.string().min(1).max(200).describe("delete_turn: a tool call id inside the turn; otherwise the tool call whose result to edit."),
  keepCharacters: z.int().min(0).max(100_000).optional().describe("truncate_result: characters of the result's start to keep."),
  note: z.string().min(1).max(2_000).optional().describe("replace_result: what to keep of the result, in your own words."),
});
export type TContextEditInput = z.infer<typeof ZContextEditInput>;

export type TContextEdit =
  | { action: "delete_turn"; id: string }
  | { action: "truncate_result"; id: string; keepCharacters: number }
  | { action: "replace_result"; id: string; note: string };

/** The edit the arguments describe, or why they describe none. */
export function readContextEdit(value: unknown): TContextEdit | { problem: string } {
  const parsed = ZContextEditInput.safeParse(value);
  if (!parsed.success) return { problem: z.prettifyError(parsed.error) };
  const { action, id, keepCharacters, note } = parsed.data;
  if (action === "delete_turn") return { action, id };
  if (action === "truncate_result") return keepCharacters === undefined ? { problem: "truncate_result needs keepCharacters." } : { action, id, keepCharacters };
  return note === undefined ? { problem: "replace_result needs a note." } : { action, id, note };
}

/** The messages of the turn holding a tool call (from its user message to the next), as [start, end). */
export function turnBounds(messages: readonly TMessage[], callId: string): [number, number] | undefined {
  const at = messages.findIndex((message) => (message.role === "assistant" ? message.toolCalls.some((call) => call.id === callId) : message.role === "tool" && message.toolCallId === callId));
  if (at < 0) return undefined;
  let start = at;
  while (start > 0 && messages[start]!.role !== "user") start -= 1;
  let end = at + 1;
  while (end < messages.length && messages[end]!.role !== "user") end += 1;
  return [start, end];
}

/** Why an edit cannot be made to this history, or undefined when it can. */
export function refusalOf(messages: readonly TMessage[], edit: TContextEdit): string | undefined {
  const firstProtected = messages.length - PROTECTED_TAIL;
  if (edit.action === "delete_turn") {
    const bounds = turnBounds(messages, edit.id);
    if (!bounds) return `No tool call "${edit.id}" in this conversation.`;
    if (bounds[1] > firstProtected) return "That turn holds the last messages of the conversation; they cannot be deleted.";
    return undefined;
  }
  const at = messages.findIndex((message) => message.role === "tool" && message.toolCallId === edit.id);
  if (at < 0) return `No tool result "${edit.id}" in this conversation.`;
  if (at >= firstProtected) return "That result is one of the last messages of the conversation; it cannot be edited.";
  return undefined;
}

function editedResult(message: TMessage & { role: "tool" }, edit: TContextEdit): TMessage {
  if (edit.action === "replace_result") {
    return { ...message, content: [{ type: "text", text: `[This result was replaced by a note (context_edit): ${edit.note}]` }] };
  }
  const text = textOf(message.content);
  if (edit.action !== "truncate_result" || text.length <= edit.keepCharacters) return message;
  const note = `\n[Truncated by context_edit: ${text.length - edit.keepCharacters} more characters; offload_recall {"id":"${message.toolCallId}","offset":${edit.keepCharacters}} reads them.]`;
  return { ...message, content: [{ type: "text", text: text.slice(0, characterBoundary(text, edit.keepCharacters)) + note }] };
}

export type TEditsReport = { applied: number; tokensSaved: number };

/** The history with every accepted edit applied, in the order they were made. */
export function applyContextEdits(messages: readonly TMessage[], count: (messages: readonly TMessage[]) => number): { messages: TMessage[]; report: TEditsReport } {
  const accepted = new Set(messages.flatMap((message) => (message.role === "tool" && message.toolName === CONTEXT_EDIT_TOOL && !message.isError ? [message.toolCallId] : [])));
  const edits = messages.flatMap((message) =>
    message.role === "assistant"
      ? message.toolCalls.flatMap((call) => {
          if (call.name !== CONTEXT_EDIT_TOOL || !accepted.has(call.id)) return [];
          const edit = readContextEdit(call.arguments);
          return "problem" in edit ? [] : [{ callId: call.id, edit }];
        })
      : [],
  );
  if (!edits.length) return { messages: [...messages], report: { applied: 0, tokensSaved: 0 } };
  let view = [...messages];
  let applied = 0;
  for (const { callId, edit } of edits) {
    if (edit.action === "delete_turn") {
      const bounds = turnBounds(view, edit.id);
      // The turn holding the edit itself is never deleted by it (the tool refuses that too).
      if (!bounds || view.slice(bounds[0], bounds[1]).some((message) => message.role === "tool" && message.toolCallId === callId)) continue;
      view = [...view.slice(0, bounds[0]), ...view.slice(bounds[1])];
    } else {
      const at = view.findIndex((message) => message.role === "tool" && message.toolCallId === edit.id);
      if (at < 0) continue;
      view[at] = editedResult(view[at] as TMessage & { role: "tool" }, edit);
    }
    applied += 1;
  }
  return { messages: view, report: { applied, tokensSaved: count(messages) - count(view) } };
}
