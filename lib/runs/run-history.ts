import type { TResumeTurn } from "@/lib/agent/agent-types";
import type { TRunSettings } from "@/lib/capabilities/tool-provider";
import { db } from "@/lib/db/client";
import type { Step } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import type { TMessage } from "@/lib/providers/types";
import { buildHistory } from "@/lib/sessions/model-history";
import { stepKey } from "@/lib/sessions/sessions";
import { decodeStep } from "@/lib/sessions/step-codecs";
import { listSteps } from "@/lib/sessions/steps";
import { userMessageContent } from "@/lib/sessions/user-content";
import type { TClaimed } from "./claim-for-input";
import { recallHistory } from "./history-cache";
import type { TRunInput, TSessionRef } from "./run-types";

/**
 * What the model sees when a run starts. The conversation so far, as the model will see it. A new session's is just the message; after
 * a run that completed here, the remembered transcript plus the message; otherwise it is read from
 * the steps.
 */
export async function historyFor(session: TSessionRef, input: TRunInput, claim: TClaimed, keepSteps?: TRunSettings["keepSteps"]): Promise<TMessage[]> {
  if (keepSteps) return buildHistory(keepSteps(await listSteps({ sessionId: session.id, userId: session.userId })));
  if ((input.kind === "message" || input.kind === "prompt") && !claim.deniedForMessage && claim.previousStepId !== undefined) {
    const message: TMessage = { role: "user", content: userMessageContent(input.text, input.kind === "message" ? input.attachments : undefined) };
    if (claim.previousStepId === null) return [message];
    const remembered = recallHistory(session.id, { userId: session.userId, previousStepId: claim.previousStepId });
    if (remembered) return [...remembered, message];
  }
  return buildHistory(await listSteps({ sessionId: session.id, userId: session.userId }));
}

/** The turn an approval (or a message instead of one) interrupted, rebuilt from its steps. */
export async function resumeTurnFor(approvalId: string, decision: TResumeTurn["decided"]["decision"], reason: string | undefined, steps: Step[]): Promise<TResumeTurn> {
  const approval = await db().approval.findUniqueOrThrow({ where: { id: approvalId } });
  const toolStep = steps.find((step) => step.id === approval.stepId);
  const modelStep = steps.find((step) => step.id === toolStep?.parentStepId);
  const decodedModel = modelStep ? decodeStep(modelStep) : undefined;
  if (!toolStep || !modelStep || decodedModel?.kind !== "model" || !decodedModel.output) {
    throw new AppError("conflict", "The step this approval belongs to no longer exists (was the session rolled back?).");
  }
  const finishedCallIds = new Set(
    steps
      .map(decodeStep)
      .flatMap((entry) => (entry.kind === "tool" && entry.step.parentStepId === modelStep.id && entry.step.status !== "RUNNING" ? [entry.input.toolCallId] : [])),
  );
  return {
    modelStep: { id: modelStep.id, key: stepKey(modelStep.seq) },
    toolCalls: decodedModel.output.toolCalls,
    finishedCallIds,
    decided: { callId: approval.toolCallId, step: { id: toolStep.id, key: stepKey(toolStep.seq) }, decision, reason },
  };
}

/** The history and resumed turn of an approval's continuation: the open calls of its turn stay open. */
export async function decisionHistory(session: TSessionRef, input: Extract<TRunInput, { kind: "approval" }>, keepSteps?: TRunSettings["keepSteps"]): Promise<{ history: TMessage[]; resume: TResumeTurn }> {
  const steps = await listSteps({ sessionId: session.id, userId: session.userId });
  const resume = await resumeTurnFor(input.approvalId, input.decision, input.reason, steps);
  const openCallIds = new Set(resume.toolCalls.filter((call) => !resume.finishedCallIds.has(call.id)).map((call) => call.id));
  return { history: buildHistory(keepSteps ? keepSteps(steps) : steps, { openCallIds }), resume };
}
