import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { sandboxRuntime, type TSandboxRuntime } from "@/lib/sandbox/runtime";
import type { ToolRegistry } from "@/lib/tools/registry";
import {
  announceRunEnded,
  assembleTools,
  chainPrepareSteps,
  resolveRunSettings,
  type TCapabilityPrepareStep,
  type TRunEndedContext,
  type TRunSettings,
  type TRunSettingsContext,
  type TSessionRef,
  type TToolProvider,
} from "./tool-provider";

/**
 * The run core's view of the product's capabilities. The composition root (lib/app/install-app.ts)
 * installs the list; the run core, sessions and chronos reach it only through the functions here,
 * so no domain below lib/app imports the features that provide tools. One per process (processSingleton) because
 * Next.js loads this module once per module graph (instrumentation, route handlers) in one process.
 */
export type TCapabilityList = (runtime: TSandboxRuntime, config: TBehaviourConfig) => TToolProvider[];

const log = createLogger("capabilities");
const slot = processSingleton("capabilities.installed", (): { list?: TCapabilityList } => ({}));

export function installCapabilities(list: TCapabilityList): void {
  slot.list = list;
}

/** The installed capabilities for this runtime and configuration. */
export function capabilityProviders(runtime: TSandboxRuntime = sandboxRuntime(), config = getBehaviourConfig()): TToolProvider[] {
  if (!slot.list) throw new AppError("unavailable", "The app's capabilities are not installed in this process (installApp() from lib/app was never called).");
  return slot.list(runtime, config);
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

/** Every tool the installed capabilities offer (the scheduled-job form's catalog, listings, tests). */
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
