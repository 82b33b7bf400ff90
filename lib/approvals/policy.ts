import type { TBehaviourConfig } from "@/lib/config/behaviour";
import { riskOfCall, type TTool } from "@/lib/tools/registry";

/**
 * One approval policy for every tool, built-in or added later (plugins, browser): a tool declares
 * its risk, xclaw.yaml maps risks (and single tools) to allow / ask / deny, and the session owner
 * can "always allow" a tool for one session. Only this function and the owner's decision decide;
 * nothing the model writes (in text or in tool arguments) is consulted. The context layers' recall
 * tools (`offload_recall`, `recall_masked`, lib/context) are risk `read` like any read-only tool:
 * they only read the calling session's own stored tool results, so `approvals.read` governs them;
 * so is `context_edit`, which writes nothing but its own step and changes only what this session's
 * model sees (an override here, e.g. `context_edit: ask`, applies to them as to any tool).
 */
export type TPolicyDecision = "allow" | "ask" | "deny";

export function decideToolCall(options: { tool: TTool | undefined; input: unknown; config: TBehaviourConfig; allowedTools: string[]; allowedOrigins?: readonly string[] }): TPolicyDecision {
  const { tool, config } = options;
  // Unknown tools are answered with an observation; nothing runs.
  if (!tool) return "allow";
  const override = config.approvals.tools[tool.name];
  if (override === "deny") return "deny";
  if (options.allowedTools.includes(tool.name)) return "allow";
  return override ?? config.approvals[riskOfCall(tool, options.input, { allowedOrigins: options.allowedOrigins ?? [] })];
}
