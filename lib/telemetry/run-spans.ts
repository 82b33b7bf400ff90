import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import type { TAgentEvent } from "@/lib/agent/agent-types";
import type { TObservedRun, TRunObserver } from "@/lib/runs/run-observers";
import type { TRunEvent } from "@/lib/runs/run-types";
import { agentName, finishReasonName, toolLabel } from "./labels";
import type { TTracing } from "./tracing";

/**
 * Spans over the run core's events, named by the OpenTelemetry GenAI semantic conventions (status
 * Development; the latest names, as OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental asks):
 *
 *   invoke_agent {agent}            one per run; a sub-agent's run hangs under the delegating tool's span
 *   ├── chat {model}                one per model call (CLIENT)
 *   └── execute_tool {tool}         one per tool call; a pause for approval is an event, and ends it
 *
 * A run's span is a child of the span active when the run started (a job's, lib/telemetry/job-spans.ts,
 * or the HTTP request's when Next.js traces it). Message content stays out of spans unless an
 * administrator sets OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
type TChatSpan = { span: Span; text: string };

export function runSpanObserver(tracing: TTracing): TRunObserver {
  // Open tool-call spans by step id, across runs: a sub-agent's run finds its caller's span here.
  const openToolSpans = new Map<string, Span>();
  return {
    runStarted(run) {
      const caller = run.callerStepId ? openToolSpans.get(run.callerStepId) : undefined;
      const parent = caller ? trace.setSpan(context.active(), caller) : context.active();
      const agent = agentName(run.runProfile);
      const root = tracing.tracer.startSpan(
        `invoke_agent ${agent}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent,
            "gen_ai.conversation.id": run.sessionId,
            "xclaw.run.id": run.runId,
            "xclaw.run.trigger": run.trigger,
            "xclaw.run.depth": run.depth,
            "xclaw.run.input": run.inputKind,
          },
        },
        parent,
      );
      return new RunSpans(tracing, run, root, trace.setSpan(parent, root), openToolSpans).receive;
    },
  };
}

class RunSpans {
  private chat: TChatSpan | undefined;
  private readonly tools = new Map<string, { span: Span; stepId: string; name: string }>();
  private approvalNoted = false;

  constructor(
    private readonly tracing: TTracing,
    private readonly run: TObservedRun,
    private readonly root: Span,
    private readonly rootContext: ReturnType<typeof context.active>,
    private readonly openToolSpans: Map<string, Span>,
  ) {}

  readonly receive = (event: TRunEvent): void => {
    if (event.type === "run-start") return;
    if (event.type === "run-end") return this.end(event.outcome);
    this.agentEvent(event);
  };

  private agentEvent(event: TAgentEvent) {
    const capture = this.tracing.captureContent;
    switch (event.type) {
      case "model-start":
        this.chat?.span.end();
        this.chat = {
          span: this.tracing.tracer.startSpan(
            "chat",
            { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", "gen_ai.conversation.id": this.run.sessionId, "xclaw.iteration": event.iteration } },
            this.rootContext,
          ),
          text: "",
        };
        return;
      case "attempt":
        if (!this.chat) return;
        this.chat.span.updateName(`chat ${event.model}`);
        this.chat.span.setAttributes({ "gen_ai.provider.name": event.provider, "gen_ai.request.model": event.model, "xclaw.attempt": event.attempt });
        return;
      case "attempt-failed":
        // The error's words may quote the request, so only that it failed and what follows.
        this.chat?.span.addEvent("xclaw.attempt.failed", { "gen_ai.provider.name": event.provider, "gen_ai.request.model": event.model, "xclaw.will_retry": event.willRetry });
        return;
      case "text-delta":
        if (capture && this.chat) this.chat.text += event.text;
        return;
      case "text-discard":
        if (this.chat) this.chat.text = "";
        return;
      case "model-end":
        return this.endChat(event);
      case "tool-start":
        return this.startTool(event.stepId, event.stepKey, event.call.name, event.call.id, capture ? event.call.arguments : undefined);
      case "tool-end": {
        const tool = this.tools.get(event.stepKey);
        if (!tool) return;
        if (capture) tool.span.setAttribute("gen_ai.tool.call.result", contentText(event.content));
        tool.span.setAttribute("xclaw.tool.outcome", event.isError ? "error" : "ok");
        if (event.isError) {
          tool.span.setAttribute("error.type", "tool_error");
          tool.span.setStatus({ code: SpanStatusCode.ERROR });
        }
        this.endTool(event.stepKey);
        return;
      }
      case "approval-request": {
        const tool = this.tools.get(event.stepKey);
        if (!tool) return;
        tool.span.addEvent("xclaw.approval.requested", { "xclaw.approval.id": event.approvalId, "xclaw.approval.risk": event.risk, "xclaw.approval.expires_at": event.expiresAt });
        tool.span.setAttribute("xclaw.tool.outcome", "awaiting_approval");
        this.endTool(event.stepKey);
        return;
      }
      default:
        return;
    }
  }

  private endChat(event: Extract<TAgentEvent, { type: "model-end" }>) {
    const chat = this.chat;
    if (!chat) return;
    this.chat = undefined;
    const attributes: Attributes = {
      "gen_ai.provider.name": event.provider,
      "gen_ai.response.model": event.model,
      "gen_ai.usage.input_tokens": event.usage.inputTokens,
      "gen_ai.usage.output_tokens": event.usage.outputTokens,
    };
    if (event.finishReason) attributes["gen_ai.response.finish_reasons"] = [finishReasonName(event.finishReason)];
    if (event.usage.cacheReadTokens !== undefined) attributes["gen_ai.usage.cache_read.input_tokens"] = event.usage.cacheReadTokens;
    if (event.usage.cacheCreationTokens !== undefined) attributes["gen_ai.usage.cache_creation.input_tokens"] = event.usage.cacheCreationTokens;
    if (this.tracing.captureContent) {
      attributes["gen_ai.output.messages"] = JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: chat.text }], finish_reason: event.finishReason ? finishReasonName(event.finishReason) : "stop" }]);
    }
    chat.span.setAttributes(attributes);
    chat.span.end();
  }

  private startTool(stepId: string, stepKey: string, name: string, callId: string, args: unknown) {
    const label = toolLabel(name, this.run.toolNames);
    const span = this.tracing.tracer.startSpan(
      `execute_tool ${label}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": label, "gen_ai.tool.call.id": callId, "gen_ai.tool.type": "function" },
      },
      this.rootContext,
    );
    if (args !== undefined) span.setAttribute("gen_ai.tool.call.arguments", typeof args === "string" ? args : JSON.stringify(args));
    if (this.run.inputKind === "approval" && !this.approvalNoted) {
      // The first call of a run started by a decision is the one that waited for it.
      this.approvalNoted = true;
      span.addEvent("xclaw.approval.decided");
    }
    this.tools.set(stepKey, { span, stepId, name: label });
    this.openToolSpans.set(stepId, span);
  }

  private endTool(stepKey: string) {
    const tool = this.tools.get(stepKey);
    if (!tool) return;
    this.tools.delete(stepKey);
    this.openToolSpans.delete(tool.stepId);
    tool.span.end();
  }

  private end(outcome: Extract<TRunEvent, { type: "run-end" }>["outcome"]) {
    const failed = outcome.status === "failed";
    if (this.chat) {
      if (failed) this.chat.span.setStatus({ code: SpanStatusCode.ERROR });
      this.chat.span.setAttribute("error.type", outcome.status === "stopped" ? "stopped" : "failed");
      this.chat.span.end();
      this.chat = undefined;
    }
    for (const key of [...this.tools.keys()]) this.endTool(key);
    this.root.setAttribute("xclaw.run.status", outcome.status);
    if (outcome.status === "stopped") this.root.setAttribute("xclaw.run.stop_reason", outcome.reason);
    if (failed) {
      this.root.setAttribute("error.type", "run_failed");
      this.root.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.root.end();
  }
}

function contentText(content: { type: string; text?: string }[]): string {
  return content.map((part) => (part.type === "text" ? (part.text ?? "") : `[${part.type}]`)).join("\n");
}
