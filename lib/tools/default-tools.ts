import { getBehaviourConfig } from "@/lib/config/behaviour";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import { calculatorTool } from "./calculator";
import { currentTimeTool } from "./current-time";
import { createFileTools } from "./file-tools";
import { ToolRegistry } from "./registry";
import { createShellTools } from "./shell-tools";

/** The tools every agent run gets. Later issues add browser and memory tools here. */
export function defaultToolRegistry(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): ToolRegistry {
  const registry = new ToolRegistry().register(currentTimeTool).register(calculatorTool);
  for (const tool of createFileTools(runtime, { deleteFile: config.tools.deleteFile })) registry.register(tool);
  for (const tool of createShellTools(runtime, { timeoutSeconds: config.sandbox.timeoutSeconds })) registry.register(tool);
  return registry;
}
