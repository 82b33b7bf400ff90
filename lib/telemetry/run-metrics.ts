import type { TRunObserver } from "@/lib/runs/run-observers";
import { toolLabel } from "./labels";
import { metrics } from "./metrics";

/**
 * The run core's events as metrics: each model call's duration, tokens and time to first text;
 * each tool call's duration and outcome; each run's end by trigger and status; the runs refused
 * at admission. Timing is taken here, from the events, so the loop carries no metrics code.
 */
export function runMetricsObserver(): TRunObserver {
  const m = metrics();
  return {
    runRefused(reason) {
      m.admissionRefusals.inc({ reason });
    },
    runStarted(run) {
      let call: { started: number; provider: string; requestModel: string; firstChunk: boolean } | undefined;
      const tools = new Map<string, string>();
      const endCall = (responseModel: string, errorType: string) => {
        if (!call) return;
        const seconds = (performance.now() - call.started) / 1000;
        m.operationDuration.observe({ gen_ai_operation_name: "chat", gen_ai_provider_name: call.provider, gen_ai_request_model: call.requestModel, gen_ai_response_model: responseModel, error_type: errorType }, seconds);
        call = undefined;
      };
      return (event) => {
        switch (event.type) {
          case "model-start":
            call = { started: performance.now(), provider: "unknown", requestModel: "unknown", firstChunk: false };
            return;
          case "attempt":
            if (call) {
              call.provider = event.provider;
              call.requestModel = event.model;
            }
            return;
          case "text-delta":
            if (call && !call.firstChunk) {
              call.firstChunk = true;
              m.timeToFirstChunk.observe({ gen_ai_operation_name: "chat", gen_ai_provider_name: call.provider, gen_ai_request_model: call.requestModel }, (performance.now() - call.started) / 1000);
            }
            return;
          case "model-end": {
            const labels = { gen_ai_operation_name: "chat", gen_ai_provider_name: event.provider, gen_ai_request_model: call?.requestModel ?? event.model, gen_ai_response_model: event.model };
            m.tokenUsage.observe({ ...labels, gen_ai_token_type: "input" }, event.usage.inputTokens);
            m.tokenUsage.observe({ ...labels, gen_ai_token_type: "output" }, event.usage.outputTokens);
            if (event.usage.cacheReadTokens) m.tokenUsage.observe({ ...labels, gen_ai_token_type: "cache_read" }, event.usage.cacheReadTokens);
            if (event.usage.cacheCreationTokens) m.tokenUsage.observe({ ...labels, gen_ai_token_type: "cache_creation" }, event.usage.cacheCreationTokens);
            if (call) call.provider = event.provider;
            endCall(event.model, "");
            return;
          }
          case "tool-start":
            tools.set(event.stepKey, toolLabel(event.call.name, run.toolNames));
            return;
          case "tool-end": {
            const tool = tools.get(event.stepKey);
            tools.delete(event.stepKey);
            if (tool) m.toolDuration.observe({ tool, outcome: event.isError ? "error" : "ok" }, event.durationMs / 1000);
            return;
          }
          case "approval-request":
            tools.delete(event.stepKey);
            return;
          case "run-end":
            endCall("unknown", event.outcome.status === "stopped" ? "stopped" : "failed");
            m.runs.inc({ trigger: run.trigger, status: event.outcome.status });
            return;
          default:
            return;
        }
      };
    },
  };
}
