import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { STOP_REASONS } from "@/lib/agent/stop-reasons";
import { createLogger } from "@/lib/observability/logger";
import type { TUsage } from "@/lib/providers/types";
import { readRunAnswer, waitForSessionRun, type TRunAnswer } from "@/lib/runs/run-answer";
import type { TStartedRun } from "@/lib/runs/start-run";
import { recordWait, takeWait, type TWaitedApproval } from "./api-sessions";

/**
 * What one completion says, in no wire format yet (completion-response.ts encodes it as a
 * `chat.completion` or as `chat.completion.chunk`s): the text as the run streams it, and how it
 * ended. A run's tool calls happen on the server and are not part of the answer; a call that needs
 * approval ends the answer with a note that links to its card in the web chat, because approvals
 * are decided there only (SECURITY.md).
 */
const log = createLogger("openai-api");

export type TFinishReason = "stop" | "length";

export type TCompletionEvent =
  | { type: "text"; text: string }
  /** A failed attempt's streamed text is void (the provider chain retries): drop the last `characters`. */
  | { type: "discard"; characters: number }
  | { type: "end"; finishReason: TFinishReason; usage: TUsage };

function waitingNote(toolName: string, link: string): string {
  return `Waiting for your approval to run ${toolName}. Approvals are decided in xclaw, not through the API: ${link} — once you have decided, send another message in this session to get the rest of the answer.`;
}

/** The words after a run's text that say how it ended (none for an ordinary answer). */
function outcomeNote(outcome: TAgentOutcome, toolName: string, link: string): string {
  switch (outcome.status) {
    case "completed":
      return "";
    case "max-iterations":
      return "(Stopped at the step limit.)";
    case "paused":
      return waitingNote(toolName || "a tool", link);
    case "stopped":
      return `(The run was ${STOP_REASONS[outcome.reason]}.)`;
    case "failed":
      return `That did not work: ${outcome.error.replace(/\.$/, "")}. The conversation is in xclaw: ${link}`;
  }
}

/** Records the wait when the run pauses, whether or not the client still listens. */
export function recordWaitWhenPaused(run: TStartedRun, userId: string): Promise<void> {
  return (async () => {
    for await (const event of run.follow()) {
      if (event.type !== "run-end") continue;
      if (event.outcome.status === "paused") await recordWait({ userId, sessionId: run.sessionId, approvalId: event.outcome.approvalId });
      return;
    }
  })().catch((error) => log.error("could not record the approval an API client waits for", { sessionId: run.sessionId, error }));
}

/** A run's text as it streams; text of successive model calls is separated by a blank line. */
export async function* runCompletion(options: { run: TStartedRun; waitRecorded: Promise<void>; link: string; signal?: AbortSignal }): AsyncGenerator<TCompletionEvent> {
  const usage: TUsage = { inputTokens: 0, outputTokens: 0 };
  let wrote = false;
  let stepCharacters = 0;
  let stepHasText = false;
  let toolName = "";
  for await (const event of options.run.follow(options.signal)) {
    if (event.type === "model-start") {
      stepHasText = false;
      stepCharacters = 0;
    } else if (event.type === "text-delta" && event.text) {
      const text = !stepHasText && wrote ? `\n\n${event.text}` : event.text;
      stepHasText = wrote = true;
      stepCharacters += text.length;
      yield { type: "text", text };
    } else if (event.type === "text-discard") {
      if (stepCharacters) yield { type: "discard", characters: stepCharacters };
      stepHasText = false;
      stepCharacters = 0;
    } else if (event.type === "model-end") {
      usage.inputTokens += event.usage.inputTokens;
      usage.outputTokens += event.usage.outputTokens;
    } else if (event.type === "approval-request") {
      toolName = event.call.name;
    } else if (event.type === "run-end") {
      // The next request must find the wait, so it is written before the answer ends.
      await options.waitRecorded;
      const note = outcomeNote(event.outcome, toolName, options.link);
      if (note) yield { type: "text", text: wrote ? `\n\n${note}` : note };
      yield { type: "end", finishReason: event.outcome.status === "max-iterations" ? "length" : "stop", usage };
      return;
    }
  }
}

function answerNote(answer: TRunAnswer, link: string): string {
  switch (answer.status) {
    case "completed":
      return answer.stepLimit ? `${answer.text}\n\n(Stopped at the step limit.)`.trim() : answer.text || "Done.";
    case "paused":
      return [answer.text, waitingNote(answer.approval.toolName, link)].filter(Boolean).join("\n\n");
    case "stopped":
      return [answer.text, `(The run was ${answer.reason}.)`].filter(Boolean).join("\n\n");
    case "failed":
      return [answer.text, `That did not work: ${answer.reason.replace(/\.$/, "")}. The conversation is in xclaw: ${link}`].filter(Boolean).join("\n\n");
    case "running":
      return `The session is running again (from the web chat). Follow it there, or ask again when it has finished: ${link}`;
  }
}

/**
 * The request after an approval the client was told about. Still undecided: the same note again,
 * and nothing runs (the API never decides, and its message does not deny the call either). Decided:
 * the run the decision started is followed to its end, and what it said after the call that waited
 * is this request's answer; the request's own message is not sent to the model.
 */
export async function* continueAfterApproval(options: { userId: string; sessionId: string; waited: TWaitedApproval; link: string; signal?: AbortSignal }): AsyncGenerator<TCompletionEvent> {
  const { waited, link } = options;
  const usage: TUsage = { inputTokens: 0, outputTokens: 0 };
  if (waited.status === "PENDING") {
    yield { type: "text", text: waitingNote(waited.toolName, link) };
    yield { type: "end", finishReason: "stop", usage };
    return;
  }
  await waitForSessionRun({ userId: options.userId, sessionId: options.sessionId, signal: options.signal });
  // A client that went away leaves the rest for its next request.
  if (options.signal?.aborted) return;
  if (!(await takeWait({ userId: options.userId, sessionId: options.sessionId, approvalId: waited.approvalId }))) {
    yield { type: "text", text: "The rest of this answer went to another request of this session at the same moment." };
    yield { type: "end", finishReason: "stop", usage };
    return;
  }
  const answer = await readRunAnswer({ userId: options.userId, sessionId: options.sessionId, afterSeq: waited.stepSeq });
  if (answer.status === "paused") await recordWait({ userId: options.userId, sessionId: options.sessionId, approvalId: answer.approval.id });
  yield { type: "text", text: answerNote(answer, link) };
  yield { type: "end", finishReason: answer.status === "completed" && answer.stepLimit ? "length" : "stop", usage };
}
