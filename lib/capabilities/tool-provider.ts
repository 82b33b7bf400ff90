import type { TBehaviourConfig } from "@/lib/config/behaviour";
import { createLogger } from "@/lib/observability/logger";
import { ToolRegistry, type TTool } from "@/lib/tools/registry";

/**
 * A capability (files, shell, browser, later memory and plugins) contributes its tools to each run
 * for that run's user and session, instead of everything living in one global registry. Providers
 * should hand out the same tool objects run after run: JSON Schemas are cached per tool object.
 */
export type TSessionRef = { userId: string; sessionId: string };

export type TToolProviderContext = TSessionRef & { config: TBehaviourConfig };

export type TToolProvider = {
  /** Where the tools come from, named in errors: "files", "browser", "plugin weather". */
  id: string;
  /** Plugin tools are exposed as `<namespace>__<name>`, so no plugin can shadow another tool. */
  namespace?: string;
  tools(context: TToolProviderContext): readonly TTool[];
  /** Frees what this capability holds for a session that was deleted (a sandbox, a browser context). */
  releaseSession?(session: TSessionRef): Promise<void>;
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
