import type { Approval, Step } from "@/lib/db/generated/client";
import { textOf, type TContentPart, type TMessage, type TToolCall } from "@/lib/providers/types";
import { imagesOf } from "./ui-stream";
import { stepKey } from "./sessions";

/**
 * Rebuilds what the model saw from the session's steps, so a reloaded, resumed or forked session
 * continues exactly where it was with either provider. Every tool call gets exactly one result:
 * a call whose step is missing (rolled back) or never finished (a crash) is answered with an
 * observation saying so, because providers reject unpaired tool calls and the model must not
 * assume the tool ran.
 */
export type TStoredUserInput = { text: string };
export type TStoredModelOutput = { text: string; toolCalls: TToolCall[] };
export type TStoredToolInput = { toolCallId: string; name: string; arguments: unknown; bang?: boolean };
export type TStoredToolOutput = { content: TContentPart[]; isError: boolean; durationMs?: number };

export const STOPPED_BY_USER = "stopped by the user";

export const INTERRUPTED_TOOL_OBSERVATION =
  "This tool call was interrupted (the server stopped while it ran) and was NOT re-run. Its effect is unknown: check the current state before trying again.";
const MISSING_TOOL_OBSERVATION = "This tool call has no recorded result (it was rolled back or never ran).";

// Providers may reuse tool-call ids across turns, so a result is found by the model call that
// asked for it and the call id together.
function toolStepKey(modelStepId: string | null, toolCallId: string): string {
  return `${modelStepId}:${toolCallId}`;
}

function indexToolSteps(steps: Step[]): Map<string, Step> {
  const index = new Map<string, Step>();
  for (const step of steps) {
    if (step.type === "TOOL_CALL") index.set(toolStepKey(step.parentStepId, (step.input as TStoredToolInput).toolCallId), step);
  }
  return index;
}

/**
 * `openCallIds`: calls of an interrupted turn that the caller is about to finish (an approval
 * decision); their results are left for it to append instead of being synthesised.
 */
export function buildHistory(steps: Step[], options: { openCallIds?: Set<string> } = {}): TMessage[] {
  const messages: TMessage[] = [];
  const results = indexToolSteps(steps);
  for (const step of steps) {
    if (step.type === "USER_INPUT") {
      messages.push({ role: "user", content: [{ type: "text", text: (step.input as TStoredUserInput).text }] });
    } else if (step.type === "MODEL_CALL" && step.status === "COMPLETED") {
      const output = step.output as TStoredModelOutput;
      messages.push({ role: "assistant", text: output.text, toolCalls: output.toolCalls });
      for (const call of output.toolCalls) {
        if (options.openCallIds?.has(call.id)) continue;
        const result = results.get(toolStepKey(step.id, call.id));
        let content: TContentPart[];
        let isError = true;
        if (!result) content = [{ type: "text", text: MISSING_TOOL_OBSERVATION }];
        else if (result.status === "RUNNING") content = [{ type: "text", text: INTERRUPTED_TOOL_OBSERVATION }];
        else if (result.output) {
          const stored = result.output as TStoredToolOutput;
          content = stored.content;
          isError = stored.isError;
        } else content = [{ type: "text", text: INTERRUPTED_TOOL_OBSERVATION }];
        messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content, isError });
      }
    } else if (step.type === "TOOL_CALL" && (step.input as TStoredToolInput).bang) {
      // A command the user ran themselves with "!": context for the model, not a call it made.
      const command = ((step.input as TStoredToolInput).arguments as { command: string }).command;
      const output = step.output ? textOf((step.output as TStoredToolOutput).content) : "(no output recorded)";
      messages.push({ role: "user", content: [{ type: "text", text: `[I ran a command in my sandbox myself: ${command}]\n${output}` }] });
    } else if (step.type === "SYSTEM_NOTE" && (step.input as { forModel?: boolean } | null)?.forModel) {
      messages.push({ role: "user", content: [{ type: "text", text: (step.input as { text: string }).text }] });
    }
  }
  return messages;
}

/** The AI SDK UI message shape the chat page renders (same parts the live stream produces). */
export type TUiPart =
  | { type: "step-start" }
  | { type: "text"; text: string; state?: "done" }
  | {
      type: "dynamic-tool";
      toolName: string;
      toolCallId: string;
      state: "input-available" | "output-available" | "output-error";
      input: unknown;
      output?: unknown;
      errorText?: string;
    }
  | { type: "data-notice"; data: { text: string; tone: "info" | "warning" | "error" } }
  | { type: "data-step"; data: { key: string; kind: string } }
  | { type: "data-approval"; data: TApprovalView };

/** An approval as the chat shows it: what will happen, and the owner's buttons while pending. */
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

export function toApprovalView(approval: Approval): TApprovalView {
  const expired = approval.status === "PENDING" && approval.expiresAt.getTime() < Date.now();
  return {
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    toolName: approval.toolName,
    risk: approval.risk,
    preview: approval.preview,
    status: expired ? "expired" : (approval.status.toLowerCase() as TApprovalView["status"]),
    reason: approval.reason,
    expiresAt: approval.expiresAt.toISOString(),
  };
}

export type TUiMessage = { id: string; role: "user" | "assistant"; parts: TUiPart[]; metadata?: Record<string, unknown> };

function toolOutputForUi(step: Step | undefined): { state: "input-available" | "output-available"; output?: unknown } {
  if (!step || step.status === "RUNNING" || !step.output) return { state: "input-available" };
  const stored = step.output as TStoredToolOutput;
  return {
    state: "output-available",
    output: {
      text: textOf(stored.content),
      images: imagesOf(stored.content),
      isError: stored.isError,
      durationMs: stored.durationMs ?? (step.endedAt ? step.endedAt.getTime() - step.startedAt.getTime() : null),
      step: stepKey(step.seq),
    },
  };
}

export function buildUiMessages(steps: Step[], approvals: Approval[] = []): TUiMessage[] {
  const messages: TUiMessage[] = [];
  const approvalByStep = new Map(approvals.map((approval) => [approval.stepId, approval]));
  const toolSteps = indexToolSteps(steps);
  let assistant: TUiMessage | undefined;
  const currentAssistant = (step: Step) => {
    if (!assistant) {
      assistant = { id: `assistant-${step.id}`, role: "assistant", parts: [] };
      messages.push(assistant);
    }
    return assistant;
  };
  for (const step of steps) {
    if (step.type === "USER_INPUT") {
      assistant = undefined;
      messages.push({ id: step.id, role: "user", parts: [{ type: "text", text: (step.input as TStoredUserInput).text }], metadata: { step: stepKey(step.seq) } });
    } else if (step.type === "MODEL_CALL") {
      const message = currentAssistant(step);
      message.parts.push({ type: "step-start" }, { type: "data-step", data: { key: stepKey(step.seq), kind: "model_call" } });
      if (step.status === "COMPLETED") {
        const output = step.output as TStoredModelOutput;
        if (output.text) message.parts.push({ type: "text", text: output.text, state: "done" });
        for (const call of output.toolCalls) {
          const tool = toolSteps.get(toolStepKey(step.id, call.id));
          message.parts.push({ type: "dynamic-tool", toolName: call.name, toolCallId: call.id, input: call.arguments, ...toolOutputForUi(tool) });
          const approval = tool ? approvalByStep.get(tool.id) : undefined;
          if (approval) message.parts.push({ type: "data-approval", data: toApprovalView(approval) });
        }
        message.metadata = { ...message.metadata, provider: step.provider, model: step.model };
      } else if (step.status === "FAILED") {
        const partial = (step.output as TStoredModelOutput | null)?.text;
        if (partial) message.parts.push({ type: "text", text: partial, state: "done" });
        // A stop is told by its own note; repeating it as an error would say it twice.
        if (step.error !== STOPPED_BY_USER) message.parts.push({ type: "data-notice", data: { text: step.error ?? "The model call failed.", tone: "error" } });
      }
    } else if (step.type === "TOOL_CALL" && (step.input as TStoredToolInput).bang) {
      const input = step.input as TStoredToolInput;
      messages.push({ id: `bang-${step.id}`, role: "user", parts: [{ type: "text", text: `!${(input.arguments as { command: string }).command}` }] });
      assistant = { id: `assistant-${step.id}`, role: "assistant", parts: [{ type: "step-start" }] };
      messages.push(assistant);
      assistant.parts.push({ type: "dynamic-tool", toolName: input.name, toolCallId: input.toolCallId, input: input.arguments, ...toolOutputForUi(step) });
      assistant = undefined;
    } else if (step.type === "SYSTEM_NOTE") {
      const input = step.input as { text: string; tone?: "info" | "warning" | "error"; forModel?: boolean };
      // Notes written for the model (the resume instruction) are not for people to read.
      const text = input.forModel ? "Resumed after the interruption." : input.text;
      currentAssistant(step).parts.push({ type: "data-notice", data: { text, tone: input.tone ?? "info" } });
    }
  }
  return messages;
}
