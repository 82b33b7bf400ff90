import type { TAgentRecorder, TStepHandle } from "@/lib/agent/agent-types";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { withDatabaseRetry } from "@/lib/db/retry";
import { storableJson } from "@/lib/db/storable";
import { stepKey } from "@/lib/sessions/sessions";
import { asJson } from "@/lib/sessions/step-codecs";
import { finishModelStep, finishStep, recordStep } from "@/lib/sessions/steps";
import type { TSessionRef } from "./run-types";

/** The agent loop's persistence: every model and tool call becomes a step row, before and after. */
function handle(step: { id: string; seq: number }): TStepHandle {
  return { id: step.id, key: stepKey(step.seq) };
}

export type TRunRecorder = TAgentRecorder & {
  /** The last step this run wrote (the history cache keys on it). */
  lastStepId(): string | undefined;
  /** Closes the pre-written model step if the run ended before calling the model. */
  closeUnusedModelStep(reason: string): Promise<void>;
};

/**
 * `prewrittenModelStep`: the first model call's step, already written RUNNING by the claim; the
 * first model call uses it instead of writing one.
 */
export function createRunRecorder(session: TSessionRef, options: { prewrittenModelStep?: { id: string; seq: number } } = {}): TRunRecorder {
  const base = { sessionId: session.id, userId: session.userId };
  let prewritten = options.prewrittenModelStep;
  let last: string | undefined;
  const track = (step: { id: string; seq: number }) => {
    last = step.id;
    return handle(step);
  };
  return {
    lastStepId: () => last,
    async closeUnusedModelStep(reason) {
      if (!prewritten) return;
      const step = prewritten;
      prewritten = undefined;
      await finishStep(step.id, { status: "FAILED", error: reason });
    },
    async modelCallStarted({ iteration }) {
      if (prewritten && iteration === 1) {
        const step = prewritten;
        prewritten = undefined;
        return track(step);
      }
      return track(await recordStep({ ...base, type: "MODEL_CALL", name: "model", input: asJson({ iteration }) }));
    },
    async modelCallFinished(step, result) {
      await finishModelStep({
        stepId: step.id,
        sessionId: session.id,
        output: asJson({ text: result.text, toolCalls: result.toolCalls, ...(result.context ? { context: result.context } : {}) }),
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        provider: result.provider,
        model: result.model,
      });
    },
    async modelCallFailed(step, error, partialText) {
      // The partial text is shown on reload; a FAILED step is never replayed to the model.
      await finishStep(step.id, { status: "FAILED", error, output: partialText ? asJson({ text: partialText, toolCalls: [], partial: true }) : undefined });
    },
    async toolCallStarted(call, parent) {
      return track(
        await recordStep({ ...base, type: "TOOL_CALL", name: call.name, parentStepId: parent.id, input: asJson({ toolCallId: call.id, name: call.name, arguments: call.arguments }) }),
      );
    },
    async toolCallFinished(step, result) {
      await finishStep(step.id, {
        status: result.isError ? "FAILED" : "COMPLETED",
        output: asJson({ content: result.content, isError: result.isError, durationMs: result.durationMs }),
        error: result.isError ? "tool reported an error" : undefined,
      });
    },
    async note(text) {
      track(await recordStep({ ...base, type: "SYSTEM_NOTE", name: "note", status: "COMPLETED", input: asJson({ text, tone: "warning" }) }));
    },
    async approvalRequested(call, step, details) {
      const expiresAt = new Date(Date.now() + getBehaviourConfig().approvals.expireMinutes * 60_000);
      const approval = await withDatabaseRetry("record an approval", () =>
        db().approval.create({
          data: {
            userId: session.userId,
            sessionId: session.id,
            stepId: step.id,
            toolName: call.name,
            toolCallId: call.id,
            risk: details.risk,
            arguments: storableJson((call.arguments ?? {}) as Prisma.InputJsonValue),
            preview: storableJson(details.preview as Prisma.InputJsonValue),
            expiresAt,
          },
        }),
      );
      return { approvalId: approval.id, expiresAt };
    },
  };
}
