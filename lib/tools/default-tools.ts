import { getBehaviourConfig } from "@/lib/config/behaviour";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import { calculatorTool } from "./calculator";
import { currentTimeTool } from "./current-time";
import { createFileTools } from "./file-tools";
import { ToolRegistry } from "./registry";
import { createShellTools } from "./shell-tools";

let cached: { runtime: TSandboxRuntime; config: unknown; registry: ToolRegistry } | undefined;

/**
 * The tools every agent run gets (later issues add browser and memory tools here). Built once per
 * configuration: runs start often, and the registry with its JSON Schemas never changes in between.
 */
export function defaultToolRegistry(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): ToolRegistry {
  if (cached && cached.runtime === runtime && cached.config === config) return cached.registry;
  const registry = buildToolRegistry(runtime, config);
  cached = { runtime, config, registry };
  return registry;
}

function buildToolRegistry(runtime: TSandboxRuntime, config: ReturnType<typeof getBehaviourConfig>): ToolRegistry {
  const registry = new ToolRegistry().register(currentTimeTool).register(calculatorTool);
  for (const tool of createFileTools(runtime, { deleteFile: config.tools.deleteFile })) registry.register(tool);
  for (const tool of createShellTools(runtime, { timeoutSeconds: config.sandbox.timeoutSeconds })) registry.register(tool);
  return registry;
}
