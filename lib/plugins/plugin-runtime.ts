import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { manifestVariable } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import type { Plugin, Prisma } from "@/lib/db/generated/client";
import { createLogger } from "@/lib/observability/logger";
import { processSingleton } from "@/lib/process-singleton";
import { defineTool, type TTool } from "@/lib/tools/registry";
import { pluginHostFromEnvironment, type PluginHostClient } from "./host-client";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { specHashOf, type TPluginSpec, type TPluginState, type TToolDeclaration, type TWorkspaceAccess } from "./host-protocol";
import { pluginNamespace } from "./manifest";
import { effectiveConfig } from "./plugin-config";
import { manifestOf, syncBundledPlugins } from "./plugin-registry";
import { carryOutWorkspaceRequest, workspaceAccessFor } from "./plugin-workspace";

/**
 * The app's view of running plugins. `syncPlugins` makes the host run exactly the enabled plugins
 * with their current configuration (a plugin whose spec did not change is left alone), and keeps a
 * snapshot of the tools they registered. Runs take their plugin tools from the snapshot (tool
 * providers are synchronous); a snapshot older than a few seconds is refreshed in the background,
 * so a change made in another app process reaches this one soon after.
 */
const log = createLogger("plugins");

/** A tool provider (lib/capabilities/tool-provider.ts, a higher layer) for one running plugin. */
export type TPluginToolProvider = { id: string; namespace: string; tools: () => readonly TTool[] };
const REFRESH_MS = 5_000;

type TSnapshot = { at: number; states: Map<string, TPluginState>; providers: TPluginToolProvider[]; hostAvailable: boolean };

// Next.js loads instrumentation and route handlers as separate module graphs: share one snapshot.
const memory = processSingleton("plugins.runtime", (): { snapshot: TSnapshot; syncing?: Promise<TSnapshot> } => ({
  snapshot: { at: 0, states: new Map(), providers: [], hostAvailable: false },
}));

const toolCache = new Map<string, TTool>();

function inputSchemaFor(declaration: TToolDeclaration): z.ZodType {
  try {
    return z.fromJSONSchema(declaration.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    log.warn("a plugin tool's input schema could not be converted; the plugin validates its input itself", { tool: declaration.name, error });
    return z.record(z.string(), z.unknown());
  }
}

/** One TTool per (plugin, spec, tool), kept while the spec does not change (JSON Schemas are cached per object). */
function toolFor(host: PluginHostClient, state: TPluginState, declaration: TToolDeclaration, timeoutMs: number, declaredWorkspace: TWorkspaceAccess): TTool {
  const key = `${state.id}\u0000${state.specHash}\u0000${declaration.name}\u0000${JSON.stringify(declaration)}\u0000${declaredWorkspace}`;
  let tool = toolCache.get(key);
  if (!tool) {
    const access = workspaceAccessFor(declaredWorkspace, declaration.risk);
    tool = defineTool({
      name: declaration.name,
      description: `${declaration.description} (plugin ${state.id})`,
      input: inputSchemaFor(declaration),
      risk: declaration.risk,
      async execute(input, context) {
        // The caller's workspace as this run sees it (a worker's folders included), opened only when granted.
        const files = access === "none" ? undefined : sandboxRuntime().workspaceFor(context.userId, context.sessionId, context.workspace);
        const answer = await host.call({
          pluginId: state.id,
          tool: declaration.name,
          input,
          context: { userId: context.userId, sessionId: context.sessionId },
          timeoutMs,
          signal: context.signal,
          workspace: access,
          onWorkspace: files ? (request) => carryOutWorkspaceRequest(files, access, request) : undefined,
        });
        return { content: [{ type: "text", text: answer.text }], isError: answer.isError };
      },
    });
    toolCache.set(key, tool);
  }
  return tool;
}

function providersFrom(host: PluginHostClient | undefined, states: Map<string, TPluginState>, timeoutMs: number, workspaces: Map<string, TWorkspaceAccess>): TPluginToolProvider[] {
  if (!host) return [];
  return [...states.values()]
    .filter((state) => state.status === "running" && state.tools.length)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((state) => {
      const tools = state.tools.map((declaration) => toolFor(host, state, declaration, timeoutMs, workspaces.get(state.id) ?? "none"));
      return { id: `plugin ${state.id}`, namespace: pluginNamespace(state.id), tools: () => tools };
    });
}

/**
 * What the host needs to run this plugin, or the reason it cannot be run; with it, the workspace
 * access its manifest declares (which the app's side of its tools needs).
 */
export function pluginSpec(plugin: Plugin): { spec: TPluginSpec; workspace: TWorkspaceAccess } | { error: string } {
  const validated = manifestOf(plugin);
  if (!validated) return { error: plugin.lastError ?? "Its manifest is invalid." };
  if (plugin.source === "UPLOADED" && !plugin.sha256) return { error: "No reviewed version is enabled." };
  const config = effectiveConfig(plugin, validated);
  if ("error" in config) return config;
  const { manifest } = validated;
  const settings = getBehaviourConfig().plugins;
  const hosts = new Set(manifest.permissions.network.hosts);
  for (const key of manifest.permissions.network.hostsFromConfig) {
    const value = config.values[key];
    if (typeof value !== "string" || !value) continue;
    try {
      const url = new URL(value);
      hosts.add(url.port ? `${url.hostname}:${url.port}` : url.hostname);
    } catch {
      return { error: `Its setting ${key} is not a URL.` };
    }
  }
  const secrets = Object.fromEntries(
    manifest.permissions.secrets.flatMap((name) => {
      const value = manifestVariable(name);
      return value ? [[name, value]] : [];
    }),
  );
  return {
    workspace: manifest.permissions.workspace,
    spec: {
      id: plugin.id,
      directory: plugin.directory,
      entry: manifest.entry,
      sha256: plugin.sha256,
      manifest: manifest as unknown as Record<string, unknown>,
      config: config.values,
      secrets,
      allowedHosts: [...hosts],
      allowedPrivateHosts: settings.allowedPrivateHosts,
      callTimeoutMs: settings.callTimeoutSeconds * 1000,
      maxCrashes: settings.maxCrashes,
    },
  };
}

async function recordState(plugin: Plugin, state: TPluginState | undefined, error?: string) {
  const lastError = error ?? (state?.status === "failed" || state?.status === "restarting" ? state.lastError : null);
  const tools = state?.tools.map((tool) => ({ name: tool.name, description: tool.description, risk: tool.risk })) ?? (plugin.tools as unknown[]);
  const changedError = lastError && lastError !== plugin.lastError;
  const changedTools = JSON.stringify(tools) !== JSON.stringify(plugin.tools);
  if (changedError || changedTools) {
    await db().plugin.update({ where: { id: plugin.id }, data: { tools: tools as Prisma.InputJsonValue, ...(changedError ? { lastError, lastErrorAt: new Date() } : {}) } });
  }
}

async function reconcile(): Promise<TSnapshot> {
  const host = pluginHostFromEnvironment();
  const settings = getBehaviourConfig().plugins;
  await syncBundledPlugins();
  if (!host || settings.host === "off") {
    memory.snapshot = { at: Date.now(), states: new Map(), providers: [], hostAvailable: false };
    return memory.snapshot;
  }
  const plugins = await db().plugin.findMany();
  const running = new Map((await host.list()).map((state) => [state.id, state]));
  const states = new Map<string, TPluginState>();
  const workspaces = new Map<string, TWorkspaceAccess>();
  await Promise.all(
    plugins.map(async (plugin) => {
      const current = running.get(plugin.id);
      if (!plugin.enabled) {
        if (current) await host.unload(plugin.id);
        return;
      }
      const built = pluginSpec(plugin);
      if ("error" in built) {
        if (current) await host.unload(plugin.id);
        return recordState(plugin, undefined, built.error);
      }
      let state = current;
      // A failed plugin stays failed until its spec changes (re-enabling it changes nothing else): see enablePlugin.
      if (!current || current.specHash !== specHashOf(built.spec)) state = await host.load(built.spec);
      states.set(plugin.id, state!);
      workspaces.set(plugin.id, built.workspace);
      await recordState(plugin, state);
    }),
  );
  for (const id of running.keys()) if (!plugins.some((plugin) => plugin.id === id)) await host.unload(id);
  memory.snapshot = { at: Date.now(), states, providers: providersFrom(host, states, settings.callTimeoutSeconds * 1000, workspaces), hostAvailable: true };
  return memory.snapshot;
}

/** Makes the host match the database now (after an admin change, at start). */
export function syncPlugins(): Promise<TSnapshot> {
  memory.syncing ??= reconcile()
    .catch((error: unknown) => {
      log.warn("could not bring the plugins up to date", { error });
      return memory.snapshot;
    })
    .finally(() => {
      memory.syncing = undefined;
    });
  return memory.syncing;
}

/** Restarts a plugin from scratch (after a failure, when an admin enables it again). */
export async function restartPlugin(id: string): Promise<void> {
  await pluginHostFromEnvironment()?.unload(id);
  await memory.syncing;
  await syncPlugins();
}

/** The plugin tool providers for a run: one per running plugin, namespaced. */
export function pluginToolProviders(): TPluginToolProvider[] {
  if (Date.now() - memory.snapshot.at > REFRESH_MS && !memory.syncing && pluginHostFromEnvironment()) void syncPlugins();
  return memory.snapshot.providers;
}

export function pluginStates(): { states: Map<string, TPluginState>; hostAvailable: boolean } {
  return { states: memory.snapshot.states, hostAvailable: memory.snapshot.hostAvailable };
}
