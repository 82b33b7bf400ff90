import { buildHistory } from "@/lib/sessions/model-history";
import { listSteps } from "@/lib/sessions/steps";
import { defineTool, type TTool } from "@/lib/tools/registry";
import { CONTEXT_EDIT_TOOL, readContextEdit, refusalOf, ZContextEditInput } from "./context-edits";

/**
 * `context_edit`: the model tidies its own view of the conversation (lib/context/context-edits.ts
 * applies the edit before every later model call). The edit is its own step, so the Steps panel
 * shows it and a rollback takes it back; the conversation's steps are never changed. Risk `read`:
 * it writes nothing but its own step and changes only what the model of this session sees.
 */
export const contextEditTool: TTool = defineTool({
  name: CONTEXT_EDIT_TOOL,
  description: [
    "Tidy your own view of this conversation to save context: delete_turn (a whole earlier turn, named by a tool call id in it),",
    "truncate_result (keep the first keepCharacters of a tool result) or replace_result (a tool result becomes your note).",
    "Takes effect from your next model call; the original stays stored (offload_recall can still read a result).",
    "The system prompt and the last 3 messages cannot be edited.",
  ].join(" "),
  input: ZContextEditInput,
  risk: "read",
  execute: async (input, context) => {
    const edit = readContextEdit(input);
    if ("problem" in edit) return { content: [{ type: "text", text: `Not edited: ${edit.problem}` }], isError: true };
    // The history as stored, up to and including this call: the same messages later calls replay.
    const history = buildHistory(await listSteps({ sessionId: context.sessionId, userId: context.userId }));
    const refusal = refusalOf(history, edit);
    if (refusal) return { content: [{ type: "text", text: `Not edited: ${refusal}` }], isError: true };
    const what = edit.action === "delete_turn" ? `the turn holding ${edit.id} is deleted` : edit.action === "truncate_result" ? `the result of ${edit.id} is cut to ${edit.keepCharacters} characters` : `the result of ${edit.id} is replaced by your note`;
    return `Edited: ${what} in your view from the next model call on. Rolling back this step undoes it.`;
  },
});
