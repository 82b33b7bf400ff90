import type { TCapabilityPrepareStep, TCapabilityContextReport, TToolProvider } from "@/lib/capabilities/tool-provider";
import type { TContextConfig } from "@/lib/config/context-config";
import { tokenCounterFor } from "@/lib/providers/token-count";
import type { TTool } from "@/lib/tools/registry";
import { compressHistory } from "./compression";
import { contextEditTool } from "./context-edit-tool";
import { applyContextEdits } from "./context-edits";
import { maskObservations } from "./masking";
import { offloadToolResults } from "./offload";
import { createRecallTools } from "./recall-tools";

/**
 * Context engineering as a capability (issue 28). Before each model call, in order: the model's
 * own edits (context_edit), offload of large tool results, masking of older ones once the context
 * passes 60 % of the window, and compression of the oldest turns past 75 % — counting with the
 * model's tokenizer (lib/providers/token-count.ts). The recall tools bring results back.
 * Installed last in lib/app/capabilities.ts, so it sees what memory recall and skills added.
 * It changes only what the model sees for one call: the loop's history and the steps keep
 * everything, and each model step records what the layers did (`output.context`).
 */
export function createContextHook(settings: TContextConfig, sessionId = ""): TCapabilityPrepareStep | undefined {
  const { offload, masking, edits, compression } = settings;
  if (!offload.enabled && !masking.enabled && !edits.enabled && !compression.enabled) return undefined;
  return async ({ system, messages, target, tools, summarize }) => {
    if (!target) return;
    const counter = await tokenCounterFor(target.model);
    const report: TCapabilityContextReport = {};
    // A run whose tools were narrowed (a scheduled job's list, a worker's) may lack the recall
    // tools: nothing is offloaded then (the rest could not be read), and placeholders say so.
    const offered = new Set((tools ?? []).map((tool) => tool.name));
    let view = messages;
    if (edits.enabled) {
      const edited = applyContextEdits(view, counter.messages);
      view = edited.messages;
      report.edits = edited.report;
    }
    if (offload.enabled && offered.has("offload_recall")) {
      const offloaded = offloadToolResults(view, counter, offload);
      view = offloaded.messages;
      report.offload = offloaded.report;
    }
    const fixedTokens = counter.text(system) + counter.tools(tools ?? []);
    const windowTokens = target.contextWindowTokens;
    if (masking.enabled) {
      // Placeholders describe the result as the model would have seen it unedited and not offloaded.
      const originals = view.length === messages.length ? messages : undefined;
      const masked = maskObservations(view, counter, { settings: masking, windowTokens, fixedTokens, originals, recallable: offered.has("recall_masked") });
      view = masked.messages;
      report.masking = masked.report;
    }
    if (compression.enabled && sessionId) {
      const compressed = await compressHistory(view, counter, { settings: compression, sessionId, windowTokens, fixedTokens, summarize });
      view = compressed.messages;
      report.compression = compressed.report;
    }
    return { messages: view, report };
  };
}

export function contextCapability(settings: TContextConfig): TToolProvider {
  const tools: TTool[] = [
    ...(settings.offload.enabled || settings.masking.enabled ? createRecallTools(settings) : []),
    ...(settings.edits.enabled ? [contextEditTool] : []),
  ];
  return { id: "context", tools: () => tools, prepareStep: (context) => createContextHook(settings, context.sessionId) };
}
