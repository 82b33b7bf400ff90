import type { TCapabilityPrepareStep, TCapabilityContextReport, TToolProvider } from "@/lib/capabilities/tool-provider";
import type { TContextConfig } from "@/lib/config/context-config";
import { tokenCounterFor } from "@/lib/providers/token-count";
import { maskObservations } from "./masking";
import { offloadToolResults } from "./offload";
import { createRecallTools } from "./recall-tools";

/**
 * Context engineering as a capability (issue 28): before each model call, offload large tool
 * results (layer 2) and mask older ones once the context fills (layer 3), counting with the
 * model's tokenizer (layer 1, lib/providers/token-count.ts); the recall tools bring either back.
 * Installed last in lib/app/capabilities.ts, so it sees what memory recall and skills added.
 * It changes only what the model sees for one call: the loop's history and the steps keep
 * every result whole, and each model step records what the layers did (`output.context`).
 */
export function createContextHook(settings: TContextConfig): TCapabilityPrepareStep | undefined {
  if (!settings.offload.enabled && !settings.masking.enabled) return undefined;
  return async ({ system, messages, target, tools }) => {
    if (!target) return;
    const counter = await tokenCounterFor(target.model);
    const report: TCapabilityContextReport = {};
    let view = messages;
    if (settings.offload.enabled) {
      const offloaded = offloadToolResults(view, counter, settings.offload);
      view = offloaded.messages;
      report.offload = offloaded.report;
    }
    if (settings.masking.enabled) {
      const fixedTokens = counter.text(system) + counter.tools(tools ?? []);
      const masked = maskObservations(view, counter, { settings: settings.masking, windowTokens: target.contextWindowTokens, fixedTokens, originals: messages });
      view = masked.messages;
      report.masking = masked.report;
    }
    return { messages: view, report };
  };
}

export function contextCapability(settings: TContextConfig): TToolProvider {
  const tools = settings.offload.enabled || settings.masking.enabled ? createRecallTools(settings) : [];
  const hook = createContextHook(settings);
  return { id: "context", tools: () => tools, prepareStep: () => hook };
}
