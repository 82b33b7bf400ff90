import type { TMessageResult } from "@/lib/runs/message-result";
import type { TRunEvent } from "@/lib/runs/run-types";
import { toolOutputView } from "./tool-output-view";
import { dataChunk, runStreamResponse, textReply, toUiChunks, uiStreamResponse, type TChatChunk } from "./ui-stream";

/**
 * The web channel: a neutral message result (lib/runs/message-result.ts) or a followed run becomes
 * the AI SDK UI message stream that the chat page's `useChat` reads.
 */
async function* toolReply(result: TMessageResult & { kind: "reply" }): AsyncIterable<TChatChunk> {
  const call = result.toolCall!;
  yield { type: "start" };
  yield { type: "start-step" };
  yield { type: "tool-input-available", toolCallId: call.callId, toolName: call.name, input: call.input, dynamic: true };
  yield {
    type: "tool-output-available",
    toolCallId: call.callId,
    output: toolOutputView({ content: call.content, isError: call.isError, durationMs: call.durationMs, stepKey: call.stepKey }),
    dynamic: true,
  };
  yield { type: "finish-step" };
  yield { type: "finish" };
}

/** A run started by the message is pushed (runStreamResponse); anything else is a short reply. */
export function messageResultResponse(result: TMessageResult, signal?: AbortSignal): Response {
  if (result.kind === "run") return runStreamResponse((onEvents) => result.run.watch(onEvents, signal));
  if (result.toolCall) return uiStreamResponse(toolReply(result));
  return uiStreamResponse(textReply(result.text, result.action ? [dataChunk("session", result.action)] : []));
}

export function runEventsResponse(events: AsyncIterable<TRunEvent>): Response {
  return uiStreamResponse(toUiChunks(events));
}
