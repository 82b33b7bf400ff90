import { toApprovalView } from "@/lib/approvals/approval-view";
import { STOP_REASONS } from "@/lib/agent/stop-reasons";
import type { Approval, Step } from "@/lib/db/generated/client";
import { indexToolSteps, toolStepKey } from "@/lib/sessions/model-history";
import { INTERRUPTED_STEP_ERROR } from "@/lib/runs/run-lease";
import { stepKey } from "@/lib/sessions/sessions";
import { decodeStep, type TDecodedStep } from "@/lib/sessions/step-codecs";
import type { TChatMessage, TChatPart } from "@/lib/wire/chat";
import { toolOutputView } from "./tool-output-view";

/**
 * The web view of a session's history: the same message parts the live stream produces
 * (ui-stream.ts), rebuilt from stored steps so a reload shows exactly what was streamed.
 */
function toolPart(call: { id: string; name: string; arguments: unknown }, result: (TDecodedStep & { kind: "tool" }) | undefined): TChatPart {
  const base = { type: "dynamic-tool" as const, toolName: call.name, toolCallId: call.id, input: call.arguments };
  if (!result || result.step.status === "RUNNING" || !result.output) return { ...base, state: "input-available" };
  const { step, output } = result;
  return {
    ...base,
    state: "output-available",
    output: toolOutputView({
      content: output.content,
      isError: output.isError,
      durationMs: output.durationMs ?? (step.endedAt ? step.endedAt.getTime() - step.startedAt.getTime() : null),
      stepKey: stepKey(step.seq),
    }),
  };
}

// A stop is told by its own note, and so is an interruption ("This run was interrupted … Resume").
const STOPPED_ERRORS = new Set<string>([...Object.values(STOP_REASONS), INTERRUPTED_STEP_ERROR]);

export function buildUiMessages(steps: Step[], approvals: Approval[] = []): TChatMessage[] {
  const messages: TChatMessage[] = [];
  const approvalByStep = new Map(approvals.map((approval) => [approval.stepId, approval]));
  const decoded = steps.map(decodeStep);
  const toolSteps = indexToolSteps(decoded);
  let assistant: TChatMessage | undefined;
  const currentAssistant = (step: Step) => {
    if (!assistant) {
      assistant = { id: `assistant-${step.id}`, role: "assistant", parts: [] };
      messages.push(assistant);
    }
    return assistant;
  };
  for (const entry of decoded) {
    const { step } = entry;
    switch (entry.kind) {
      case "user":
        assistant = undefined;
        messages.push({
          id: step.id,
          role: "user",
          parts: [
            { type: "text", text: entry.input.text },
            ...(entry.input.attachments ?? []).map((file) => ({
              type: "data-attachment" as const,
              data: {
                name: file.name,
                path: file.path,
                mediaType: file.mediaType,
                bytes: file.bytes,
                ...(file.image ? { preview: `data:${file.image.mediaType};base64,${file.image.data}` } : {}),
              },
            })),
          ],
          metadata: { step: stepKey(step.seq) },
        });
        break;
      case "model": {
        const message = currentAssistant(step);
        message.parts.push({ type: "step-start" }, { type: "data-step", data: { key: stepKey(step.seq), kind: "model_call" } });
        if (step.status === "COMPLETED" && entry.output) {
          if (entry.output.text) message.parts.push({ type: "text", text: entry.output.text, state: "done" });
          for (const call of entry.output.toolCalls) {
            const tool = toolSteps.get(toolStepKey(step.id, call.id));
            message.parts.push(toolPart(call, tool));
            const approval = tool ? approvalByStep.get(tool.step.id) : undefined;
            if (approval) message.parts.push({ type: "data-approval", data: toApprovalView(approval) });
          }
          message.metadata = { ...message.metadata, provider: step.provider, model: step.model };
        } else if (step.status === "FAILED") {
          if (entry.output?.text) message.parts.push({ type: "text", text: entry.output.text, state: "done" });
          // A stop is told by its own note; repeating it as an error would say it twice.
          if (!STOPPED_ERRORS.has(step.error ?? "")) message.parts.push({ type: "data-notice", data: { text: step.error ?? "The model call failed.", tone: "error" } });
        }
        break;
      }
      case "tool":
        if (!entry.input.bang) break;
        messages.push({ id: `bang-${step.id}`, role: "user", parts: [{ type: "text", text: `!${String((entry.input.arguments as { command?: unknown } | null)?.command ?? "")}` }] });
        messages.push({ id: `assistant-${step.id}`, role: "assistant", parts: [{ type: "step-start" }, toolPart({ id: entry.input.toolCallId, name: entry.input.name, arguments: entry.input.arguments }, entry)] });
        assistant = undefined;
        break;
      case "command":
        messages.push({ id: `command-${step.id}`, role: "user", parts: [{ type: "text", text: entry.input.text }], metadata: { step: stepKey(step.seq) } });
        messages.push({
          id: `reply-${step.id}`,
          role: "assistant",
          parts: [{ type: "step-start" }, { type: "text", text: entry.output?.reply ?? "", state: "done" }],
        });
        assistant = undefined;
        break;
      case "note":
        // Notes written for the model (the resume instruction) are not for people to read.
        currentAssistant(step).parts.push({
          type: "data-notice",
          data: {
            text: entry.input.forModel ? "Resumed after the interruption." : entry.input.text,
            tone: entry.input.tone ?? "info",
            ...(step.name === "interrupted" ? { kind: "interrupted" as const } : {}),
          },
        });
        break;
      case "unreadable":
        currentAssistant(step).parts.push({ type: "data-notice", data: { text: `Step ${stepKey(step.seq)} could not be read and is not shown.`, tone: "warning" } });
        break;
    }
  }
  return messages;
}
