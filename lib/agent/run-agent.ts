import { fitToContextWindow } from "./context-window";
import { completeText, streamWithFallback } from "@/lib/providers/provider-chain";
import { calibrateTokenCounts, tokenCounterFor } from "@/lib/providers/token-count";
import type { TFinishReason, TMessage, TToolCall, TUsage } from "@/lib/providers/types";
import type { TAgentEvent, TAgentOutcome, TContextReport, TContextTarget, TRunAgentOptions } from "./agent-types";
import { stopReasonOf, STOP_REASONS } from "./stop-reasons";
import { emitTo, executeTool, finishCall, observation, runToolPhase, toolContextFor } from "./tool-phase";

export type { TAgentEvent, TAgentOutcome, TAgentRecorder, TResumeTurn, TRunAgentOptions, TStepHandle } from "./agent-types";

/**
 * The agent loop, the same for every kind of run (chat, scheduled job, webhook, channel, worker):
 * call the model, run the tools it asks for, feed the observations back, until it answers in text
 * or `maxIterations` model calls have been made. Nothing a tool or the model does can crash the
 * loop: unknown tools, invalid arguments and tool errors become observations the model can react
 * to. Each step is recorded before its side effect runs and completed after (the recorder persists
 * it), so a crash never loses a completed step.
 */
function summarizer(options: TRunAgentOptions) {
  return (transcript: string) =>
    completeText(
      options.providers,
      {
        system: "You write short, factual summaries of conversations for an assistant that has lost the original messages.",
        user: `Summarise this conversation in at most 200 words, keeping names, numbers, decisions and open tasks:\n\n${transcript}`,
        maxOutputTokens: 600,
        signal: options.signal,
      },
      options.retryPolicy,
    );
}

/** Finishes the turn an approval interrupted: the decided call first, then the rest of its calls. */
async function continueTurn(options: TRunAgentOptions, messages: TMessage[]): Promise<TAgentOutcome | undefined> {
  const resume = options.resume!;
  const pending = resume.toolCalls.find((call) => call.id === resume.decided.callId);
  if (pending) {
    emitTo(options, { type: "tool-start", stepId: resume.decided.step.id, stepKey: resume.decided.step.key, call: pending });
    const { result } = await finishCall(options, pending, resume.decided.step, async () =>
      resume.decided.decision === "approve"
        ? executeTool(options.tools, pending, toolContextFor(options, resume.decided.step, pending.id))
        : observation(`Denied by the user${resume.decided.reason ? `: ${resume.decided.reason}` : "."} Do not retry this call; ask the user or take another approach.`),
    );
    messages.push({ role: "tool", toolCallId: pending.id, toolName: pending.name, content: result.content, isError: result.isError });
  }
  const remaining = resume.toolCalls.filter((call) => call.id !== resume.decided.callId && !resume.finishedCallIds.has(call.id));
  return runToolPhase(options, messages, resume.modelStep, remaining);
}

export async function runAgent(options: TRunAgentOptions): Promise<TAgentOutcome> {
  const { recorder, signal } = options;
  const emit = (event: TAgentEvent) => emitTo(options, event);
  const messages = [...options.history];
  const usedCallIds = new Set(messages.flatMap((message) => (message.role === "assistant" ? message.toolCalls.map((call) => call.id) : [])));
  const definitions = options.tools.definitions();
  if (!options.providers.length) return { status: "failed", error: "No model provider is configured." };
  const smallestWindow = options.providers.reduce((smallest, provider) => (provider.contextWindowTokens < smallest.contextWindowTokens ? provider : smallest));
  const summarize = summarizer(options);
  // Counted for the model most likely to answer (the chain's first), fitted to the smallest window.
  const counter = await tokenCounterFor(options.providers[0]!.model);
  const target: TContextTarget = { model: counter.model, contextWindowTokens: smallestWindow.contextWindowTokens, maxOutputTokens: smallestWindow.maxOutputTokens };

  if (options.resume) {
    const paused = await continueTurn(options, messages);
    if (paused) return paused;
  }

  for (let iteration = 1; iteration <= options.maxIterations; iteration++) {
    const stopped = stopReasonOf(signal);
    if (stopped) return { status: "stopped", reason: stopped };
    const prepared = (await options.prepareStep?.({ iteration, system: options.system, messages, target, tools: definitions, summarize })) ?? {};
    const system = prepared.system ?? options.system;
    const context = await fitToContextWindow({ provider: smallestWindow, counter, system, tools: definitions, messages: prepared.messages ?? messages, summarize });
    const report: TContextReport = {
      ...prepared.report,
      window: { tokens: context.estimatedTokens, tokenizer: counter.exact ? counter.tokenizer : `${counter.tokenizer} (estimate)`, droppedTurns: context.droppedTurns, summarized: context.summarized },
    };
    const step = await recorder.modelCallStarted({ iteration });
    emit({ type: "model-start", stepId: step.id, stepKey: step.key, iteration });
    let text = "";
    let turn: { toolCalls: TToolCall[]; usage: TUsage; provider: string; model: string; finishReason: TFinishReason } | undefined;
    try {
      for await (const event of streamWithFallback(options.providers, { system, messages: context.messages, tools: definitions, signal }, options.retryPolicy)) {
        if (event.type === "text-delta") {
          text += event.text;
          emit(event);
        } else if (event.type === "text-discard") {
          text = "";
          emit(event);
        } else if (event.type === "attempt-start") {
          emit({ type: "attempt", provider: event.provider, model: event.model, attempt: event.attempt });
        } else if (event.type === "attempt-failed") {
          emit({ type: "attempt-failed", provider: event.provider, model: event.model, error: event.error, willRetry: event.willRetry });
        } else {
          turn = { toolCalls: event.toolCalls, usage: event.usage, provider: event.provider, model: event.model, finishReason: event.finishReason };
        }
      }
    } catch (error) {
      const reason = stopReasonOf(signal);
      if (reason) {
        await recorder.modelCallFailed(step, STOP_REASONS[reason], text);
        return { status: "stopped", reason };
      }
      const message = error instanceof Error ? error.message : String(error);
      await recorder.modelCallFailed(step, message, text);
      return { status: "failed", error: message };
    }
    if (!turn) {
      await recorder.modelCallFailed(step, "the model stream ended without a result");
      return { status: "failed", error: "The model stream ended without a result." };
    }
    // Tool-call ids must be unique within the conversation (Anthropic rejects repeats, and some
    // OpenAI-compatible servers number calls from 1 every turn).
    const toolCalls = turn.toolCalls.map((call, index) => {
      const id = call.id && !usedCallIds.has(call.id) ? call.id : `${call.id || "call"}_${step.key}_${index}`;
      usedCallIds.add(id);
      return { ...call, id };
    });
    if (turn.model === counter.model) calibrateTokenCounts(counter.model, context.estimatedTokens, turn.usage.inputTokens);
    await recorder.modelCallFinished(step, { text, toolCalls, usage: turn.usage, provider: turn.provider, model: turn.model, context: report });
    emit({ type: "model-end", stepId: step.id, stepKey: step.key, provider: turn.provider, model: turn.model, usage: turn.usage, finishReason: turn.finishReason });
    messages.push({ role: "assistant", text, toolCalls });
    if (!toolCalls.length) {
      options.onTranscript?.(messages);
      return { status: "completed", text };
    }

    const paused = await runToolPhase(options, messages, step, toolCalls);
    if (paused) return paused;
  }
  const notice =
    options.iterationLimitNotice ??
    `Stopped after ${options.maxIterations} model calls without a final answer (the agent.maxIterations limit). Send another message to let the agent continue.`;
  await recorder.note(notice);
  emit({ type: "notice", text: notice, tone: "warning" });
  options.onTranscript?.(messages);
  return { status: "max-iterations", text: notice };
}
