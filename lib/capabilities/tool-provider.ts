import type { TBehaviourConfig } from "@/lib/config/behaviour";
import type { Step } from "@/lib/db/generated/client";
import type { TWorkspaceScope } from "@/lib/sandbox/types";
import type { TMessage, TToolDefinition } from "@/lib/providers/types";
import { createLogger } from "@/lib/observability/logger";
import { ToolRegistry, type TTool } from "@/lib/tools/registry";

/**
 * A capability (files, shell, browser, later memory and plugins) contributes its tools to each run
 * for that run's user and session, instead of everything living in one global registry. Providers
 * should hand out the same tool objects run after run: JSON Schemas are cached per tool object.
 */
export type TSessionRef = { userId: string; sessionId: string };

export type TToolProviderContext = TSessionRef & {
  config: TBehaviourConfig;
  /** The session's run profile (a worker's, a team's; lib/agents), when the run core knows it. */
  runProfile?: unknown;
  /** How the session began ("WEB", "CHANNEL", "JOB", "AGENT"…), when the run core knows it. */
  sessionTrigger?: string;
};

/** What a capability hears when one of a session's runs has ended and its end is recorded. */
export type TRunEndedContext = TToolProviderContext & { status: "completed" | "max-iterations" | "stopped" | "paused" | "failed" };

/**
 * Runs before every model call of a run and may add to what the model sees (memory recall, skills).
 * The stable system prompt must stay first so providers can cache it: add after it.
 */
export type TCapabilityPrepareStep = (input: TCapabilityPrepareInput) => Promise<{ system?: string; messages?: TMessage[]; report?: TCapabilityContextReport } | void>;

/**
 * The model the call most likely goes to and the window it must fit, and the tools it is offered
 * (the context layers count them); the same shape as lib/agent's prepareStep input.
 */
export type TCapabilityPrepareInput = {
  iteration: number;
  system: string;
  messages: TMessage[];
  target?: { model: string; contextWindowTokens: number; maxOutputTokens: number };
  tools?: TToolDefinition[];
  /** Summarises a transcript with the run's own models (context compression). */
  summarize?: (transcript: string) => Promise<string>;
};

/** What a hook did, per layer (lib/context), recorded on the model call's step (lib/agent's TContextReport). */
export type TCapabilityContextReport = Record<string, Record<string, number | string | boolean>>;

/**
 * What a session's run profile (stored on the session, lib/agents) makes of one run: a worker's
 * role, tools, limits and folders, or the team member a router picked for this message. Applied by
 * the run core to every run of the session (the first, resumes, approval continuations), so
 * nothing depends on which process or trigger starts the run.
 */
export type TRunSettings = {
  /** Added to the system prompt after the configured instructions. */
  instructions?: string;
  /** Tool names the run may use (narrows whatever the run was given). */
  allowedTools?: string[];
  maxIterations?: number;
  timeoutMs?: number;
  approvals?: "ask" | "deny";
  /** The folders of the owner's workspace the run's file tools and sandbox see. */
  workspace?: TWorkspaceScope;
  /** How many parent runs this session has. */
  depth?: number;
  /** Replaces the model of the first provider in the chain. */
  model?: string;
  /** Written to the session (for people, not the model) when the run starts, e.g. who answers. */
  note?: { name: string; text: string; data?: Record<string, string> };
  /** Which of the session's steps the model's history is built from (a team member's own turns). */
  keepSteps?: (steps: Step[]) => Step[];
};

export type TRunSettingsContext = TToolProviderContext & {
  /** The session's stored run profile (never null here). */
  profile: unknown;
  /** What started the run; the text for a message or prompt. */
  input: { kind: string; text?: string };
};

export type TToolProvider = {
  /** Where the tools come from, named in errors: "files", "browser", "plugin weather". */
  id: string;
  /** Plugin tools are exposed as `<namespace>__<name>`, so no plugin can shadow another tool. */
  namespace?: string;
  tools(context: TToolProviderContext): readonly TTool[];
  /** Frees what this capability holds for a session that was deleted (a sandbox, a browser context). */
  releaseSession?(session: TSessionRef): Promise<void>;
  /** A hook for each model call of this session's runs (e.g. memory recall), or undefined. */
  prepareStep?(context: TToolProviderContext): TCapabilityPrepareStep | undefined;
  /** For sessions with a run profile: this capability's reading of it (undefined: not mine). */
  runSettings?(context: TRunSettingsContext): Promise<TRunSettings | undefined>;
  /**
   * After a run's end is recorded (memory schedules extraction here): work that must not stand
   * between the user and the first token. Nobody waits for it; a failure is logged.
   */
  runEnded?(context: TRunEndedContext): Promise<void>;
};

const log = createLogger("tools");

const namespacedCache = new WeakMap<TTool, Map<string, TTool>>();

/** The same tool under `<namespace>__<name>`, made once per (tool, namespace). */
function namespaced(tool: TTool, namespace: string): TTool {
  let byNamespace = namespacedCache.get(tool);
  if (!byNamespace) namespacedCache.set(tool, (byNamespace = new Map()));
  let renamed = byNamespace.get(namespace);
  if (!renamed) byNamespace.set(namespace, (renamed = { ...tool, name: `${namespace}__${tool.name}`.slice(0, 64) }));
  return renamed;
}

/**
 * The tools of one run. A tool whose name is taken is refused with an error naming both sources
 * and left out; a provider that throws loses its own tools. Neither ever stops the run.
 */
export function assembleTools(providers: readonly TToolProvider[], context: TToolProviderContext): { registry: ToolRegistry; problems: string[] } {
  const registry = new ToolRegistry();
  const problems: string[] = [];
  for (const provider of providers) {
    let tools: readonly TTool[];
    try {
      tools = provider.tools(context);
    } catch (error) {
      problems.push(`The ${provider.id} tools are unavailable: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    for (const tool of tools) {
      try {
        registry.register(provider.namespace ? namespaced(tool, provider.namespace) : tool, provider.id);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  for (const problem of problems) log.warn("tool not registered", { problem, sessionId: context.sessionId });
  return { registry, problems };
}

/** The providers' prepare hooks for one run, chained in the providers' order. */
export function chainPrepareSteps(providers: readonly TToolProvider[], context: TToolProviderContext, extra?: TCapabilityPrepareStep): TCapabilityPrepareStep | undefined {
  const hooks = providers.flatMap((provider) => {
    try {
      const hook = provider.prepareStep?.(context);
      return hook ? [hook] : [];
    } catch (error) {
      log.warn("a capability's prepare hook is unavailable", { capability: provider.id, error });
      return [];
    }
  });
  if (extra) hooks.push(extra);
  if (!hooks.length) return undefined;
  return async (input) => {
    let { system, messages } = input;
    let report: TCapabilityContextReport | undefined;
    for (const hook of hooks) {
      const changed = (await hook({ ...input, system, messages })) ?? {};
      system = changed.system ?? system;
      messages = changed.messages ?? messages;
      if (changed.report) report = { ...report, ...changed.report };
    }
    return { system, messages, report };
  };
}

/** Tells every capability that a run ended; returns once all have been told (callers need not wait). */
export async function announceRunEnded(providers: readonly TToolProvider[], context: TRunEndedContext): Promise<void> {
  await Promise.all(
    providers.map(async (provider) => {
      try {
        await provider.runEnded?.(context);
      } catch (error) {
        log.warn("a capability failed on a run's end", { capability: provider.id, sessionId: context.sessionId, error });
      }
    }),
  );
}

/** The first provider that recognises the session's run profile decides its settings. */
export async function resolveRunSettings(providers: readonly TToolProvider[], context: TRunSettingsContext): Promise<TRunSettings | undefined> {
  for (const provider of providers) {
    const settings = await provider.runSettings?.(context);
    if (settings) return settings;
  }
  return undefined;
}
