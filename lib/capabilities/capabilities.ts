import { agentsCapability } from "@/lib/agents/agents-capability";
import { createBrowserTools } from "@/lib/browser/browser-tools";
import { browserWorkerFromEnvironment, closeBrowserSession } from "@/lib/browser/worker-client";
import { createCronManageTool } from "@/lib/chronos/cron-manage-tool";
import { notifyTool } from "@/lib/chronos/notify-tool";
import { scanSecretsTool } from "@/lib/chronos/scan-secrets-tool";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { memoryCapability } from "@/lib/memory/memory-capability";
import { createLogger } from "@/lib/observability/logger";
import { pluginToolProviders } from "@/lib/plugins/plugin-runtime";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import { skillLoadTool, skillsPrepareStep } from "@/lib/skills/skill-tools";
import { calculatorTool } from "@/lib/tools/calculator";
import { currentTimeTool } from "@/lib/tools/current-time";
import { createFileTools } from "@/lib/tools/file-tools";
import type { ToolRegistry } from "@/lib/tools/registry";
import { createShellTools } from "@/lib/tools/shell-tools";
import { announceRunEnded, assembleTools, chainPrepareSteps, resolveRunSettings, type TCapabilityPrepareStep, type TRunSettings, type TRunEndedContext, type TRunSettingsContext, type TSessionRef, type TToolProvider } from "./tool-provider";

/**
 * The capabilities every run can draw on, in one list: each contributes tools per run and frees
 * what it holds when a session is deleted. New capabilities (memory, plugins, agents) are added
 * here, not in the run core or in deleteSession.
 */
const log = createLogger("capabilities");

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
  ];
}

let cached: { runtime: TSandboxRuntime; config: TBehaviourConfig; browserWorker: string | undefined; providers: TToolProvider[] } | undefined;

/** Built once per configuration: runs start often, and the tool objects never change in between. */
export function capabilityProviders(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): TToolProvider[] {
  const browserWorker = environment().BROWSER_WORKER_URL;
  if (!cached || cached.runtime !== runtime || cached.config !== config || cached.browserWorker !== browserWorker) {
    cached = { runtime, config, browserWorker, providers: buildProviders(runtime, config) };
  }
  // Plugins come and go while the app runs: one namespaced provider per running plugin (lib/plugins).
  const plugins = pluginToolProviders();
  return plugins.length ? [...cached.providers, ...plugins] : cached.providers;
}

/** The tools a run of this session gets. */
export function runTools(session: TSessionRef & { runProfile?: unknown }, config = getBehaviourConfig()): ToolRegistry {
  return assembleTools(capabilityProviders(sandboxRuntime(config), config), { ...session, config }).registry;
}

/** The capabilities' prepare hooks for a run of this session, plus the run's own, chained. */
export function runPrepareStep(session: TSessionRef & { runProfile?: unknown; sessionTrigger?: string }, extra?: TCapabilityPrepareStep, config = getBehaviourConfig()): TCapabilityPrepareStep | undefined {
  return chainPrepareSteps(capabilityProviders(sandboxRuntime(config), config), { ...session, config }, extra);
}

/** What the session's run profile (a worker's, a team's) makes of this run; undefined for ordinary chats. */
export async function runSettingsFor(context: Omit<TRunSettingsContext, "config">, config = getBehaviourConfig()): Promise<TRunSettings | undefined> {
  return resolveRunSettings(capabilityProviders(sandboxRuntime(config), config), { ...context, config });
}

/** After a run's end is recorded: each capability's follow-up work (never on the way to a first token). */
export async function runEnded(context: Omit<TRunEndedContext, "config">, config = getBehaviourConfig()): Promise<void> {
  await announceRunEnded(capabilityProviders(sandboxRuntime(config), config), { ...context, config });
}

/** Every tool the default capabilities offer (listings, tests). */
export function defaultToolRegistry(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): ToolRegistry {
  return assembleTools(capabilityProviders(runtime, config), { userId: "", sessionId: "", config }).registry;
}

/** The one "session deleted" hook: every capability frees what it held for the session. */
export async function releaseSessionResources(session: TSessionRef): Promise<void> {
  await Promise.all(
    capabilityProviders().map(async (provider) => {
      try {
        await provider.releaseSession?.(session);
      } catch (error) {
        log.warn("could not release a deleted session's resources", { capability: provider.id, sessionId: session.sessionId, error });
      }
    }),
  );
}
