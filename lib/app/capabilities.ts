import { agentsCapability } from "@/lib/agents/agents-capability";
import { createBrowserTools } from "@/lib/browser/browser-tools";
import { channelsCapability } from "@/lib/channels/channels-capability";
import { browserWorkerFromEnvironment, closeBrowserSession } from "@/lib/browser/worker-client";
import { createCronManageTool } from "@/lib/chronos/cron-manage-tool";
import { notifyTool } from "@/lib/chronos/notify-tool";
import { scanSecretsTool } from "@/lib/chronos/scan-secrets-tool";
import type { TBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { contextCapability } from "@/lib/context/context-capability";
import { memoryCapability } from "@/lib/memory/memory-capability";
import { pluginToolProviders } from "@/lib/plugins/plugin-runtime";
import type { TSandboxRuntime } from "@/lib/sandbox/runtime";
import { skillLoadTool, skillsPrepareStep } from "@/lib/skills/skill-tools";
import { calculatorTool } from "@/lib/tools/calculator";
import { currentTimeTool } from "@/lib/tools/current-time";
import { createFileTools } from "@/lib/tools/file-tools";
import { createShellTools } from "@/lib/tools/shell-tools";
import { defaultToolRegistry } from "@/lib/capabilities/installed-capabilities";
import type { TToolProvider } from "@/lib/capabilities/tool-provider";

/**
 * The capabilities every run can draw on, in one list: each contributes tools per run and frees
 * what it holds when a session is deleted. A new capability (a feature's tool provider) is added
 * here, not in the run core or in deleteSession; the run core reaches this list only through
 * lib/capabilities/installed-capabilities.ts, which installApp() fills.
 */
function buildProviders(runtime: TSandboxRuntime, config: TBehaviourConfig): TToolProvider[] {
  const core = [currentTimeTool, calculatorTool];
  const files = createFileTools(runtime, { deleteFile: config.tools.deleteFile });
  const shell = createShellTools(runtime, { timeoutSeconds: config.sandbox.timeoutSeconds });
  // Browser tools exist when a browser worker does (started by `npm run dev` / `npm start`, or BROWSER_WORKER_URL).
  const worker =
    config.browser.worker === "off" ? undefined : browserWorkerFromEnvironment({ timeoutMs: (config.browser.navigationTimeoutSeconds + config.browser.networkIdleSeconds) * 1000 + 30_000 });
  const browser = worker ? createBrowserTools(worker) : [];
  // Chronos: notify, scan_secrets, and cron_manage, which checks a job's tools against this very catalog.
  const chronos = [notifyTool, scanSecretsTool, createCronManageTool({ catalog: () => defaultToolRegistry(runtime, config).list() })];
  return [
    { id: "core", tools: () => core },
    { id: "files", tools: () => files },
    {
      id: "shell",
      tools: () => shell,
      // A remote sandbox belongs to its session and ends with it.
      releaseSession: async (session) => runtime.sandbox?.releaseSession(session.sessionId),
    },
    { id: "browser", tools: () => browser, releaseSession: (session) => closeBrowserSession(session) },
    // Skills: the catalog after the stable system prompt, skill_load for the instructions (lib/skills).
    { id: "skills", tools: () => [skillLoadTool], prepareStep: (context) => skillsPrepareStep(context) },
    { id: "chronos", tools: () => chronos },
    // Multi-agent: delegate / debate / pipeline / agent_results, deliver for workers, worker and team sessions' settings.
    agentsCapability,
    // Memory and knowledge-base tools, and recall before every model call (lib/memory).
    memoryCapability(),
    // Chat channels: the rest of an answer goes back to QQ / Feishu after an approval on the web.
    channelsCapability,
    // Context layers (lib/context): offload and mask tool results before each model call, and the
    // recall tools. Last, so its hook sees what memory recall and skills added.
    contextCapability(config.context),
  ];
}

let cached: { runtime: TSandboxRuntime; config: TBehaviourConfig; browserWorker: string | undefined; providers: TToolProvider[] } | undefined;

/**
 * The capability list installed by installApp(). Built once per configuration: runs start often,
 * and the tool objects never change in between.
 */
export function appCapabilities(runtime: TSandboxRuntime, config: TBehaviourConfig): TToolProvider[] {
  const browserWorker = environment().BROWSER_WORKER_URL;
  if (!cached || cached.runtime !== runtime || cached.config !== config || cached.browserWorker !== browserWorker) {
    cached = { runtime, config, browserWorker, providers: buildProviders(runtime, config) };
  }
  // Plugins come and go while the app runs: one namespaced provider per running plugin (lib/plugins).
  const plugins = pluginToolProviders();
  return plugins.length ? [...cached.providers, ...plugins] : cached.providers;
}
