import { createBrowserTools } from "@/lib/browser/browser-tools";
import { browserWorkerFromEnvironment, closeBrowserSession } from "@/lib/browser/worker-client";
import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { memoryCapability } from "@/lib/memory/memory-capability";
import { createLogger } from "@/lib/observability/logger";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import { calculatorTool } from "@/lib/tools/calculator";
import { currentTimeTool } from "@/lib/tools/current-time";
import { createFileTools } from "@/lib/tools/file-tools";
import type { ToolRegistry } from "@/lib/tools/registry";
import { createShellTools } from "@/lib/tools/shell-tools";
import { assembleTools, chainPrepareSteps, type TCapabilityPrepareStep, type TSessionRef, type TToolProvider } from "./tool-provider";

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
    // Memory and knowledge-base tools, and recall before every model call (lib/memory).
    memoryCapability(),
  ];
}

let cached: { runtime: TSandboxRuntime; config: TBehaviourConfig; browserWorker: string | undefined; providers: TToolProvider[] } | undefined;

/** Built once per configuration: runs start often, and the tool objects never change in between. */
export function capabilityProviders(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): TToolProvider[] {
  const browserWorker = process.env.BROWSER_WORKER_URL;
  if (cached && cached.runtime === runtime && cached.config === config && cached.browserWorker === browserWorker) return cached.providers;
  const providers = buildProviders(runtime, config);
  cached = { runtime, config, browserWorker, providers };
  return providers;
}

/** The tools a run of this session gets. */
export function runTools(session: TSessionRef, config = getBehaviourConfig()): ToolRegistry {
  return assembleTools(capabilityProviders(sandboxRuntime(config), config), { ...session, config }).registry;
}

/** The capabilities' prepare hooks for a run of this session, plus the run's own, chained. */
export function runPrepareStep(session: TSessionRef, extra?: TCapabilityPrepareStep, config = getBehaviourConfig()): TCapabilityPrepareStep | undefined {
  return chainPrepareSteps(capabilityProviders(sandboxRuntime(config), config), { ...session, config }, extra);
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
