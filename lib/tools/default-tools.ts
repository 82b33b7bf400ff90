import { createBrowserTools } from "@/lib/browser/browser-tools";
import { browserWorkerFromEnvironment } from "@/lib/browser/worker-client";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import { calculatorTool } from "./calculator";
import { currentTimeTool } from "./current-time";
import { createFileTools } from "./file-tools";
import { ToolRegistry } from "./registry";
import { createShellTools } from "./shell-tools";

let cached: { runtime: TSandboxRuntime; config: unknown; browserWorker: string | undefined; registry: ToolRegistry } | undefined;

/**
 * The tools every agent run gets (later issues add browser and memory tools here). Built once per
 * configuration: runs start often, and the registry with its JSON Schemas never changes in between.
 */
export function defaultToolRegistry(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): ToolRegistry {
  const browserWorker = process.env.BROWSER_WORKER_URL;
  if (cached && cached.runtime === runtime && cached.config === config && cached.browserWorker === browserWorker) return cached.registry;
  const registry = buildToolRegistry(runtime, config);
  cached = { runtime, config, browserWorker, registry };
  return registry;
}

function buildToolRegistry(runtime: TSandboxRuntime, config: ReturnType<typeof getBehaviourConfig>): ToolRegistry {
  const registry = new ToolRegistry().register(currentTimeTool).register(calculatorTool);
  for (const tool of createFileTools(runtime, { deleteFile: config.tools.deleteFile })) registry.register(tool);
  for (const tool of createShellTools(runtime, { timeoutSeconds: config.sandbox.timeoutSeconds })) registry.register(tool);
  // Browser tools exist when a browser worker does (started by `npm run dev` / `npm start`, or BROWSER_WORKER_URL).
  const browser = config.browser.worker === "off" ? undefined : browserWorkerFromEnvironment({ timeoutMs: (config.browser.navigationTimeoutSeconds + config.browser.networkIdleSeconds) * 1000 + 30_000 });
  if (browser) for (const tool of createBrowserTools(browser)) registry.register(tool);
  return registry;
}
