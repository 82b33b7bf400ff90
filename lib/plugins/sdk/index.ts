import type { z } from "zod";

/**
 * The plugin SDK: what a plugin's entry file sees. A plugin exports `definePluginEntry({ register })`
 * (or any object with a `register(api)` function) as its default export; `register` adds tools and
 * services through `api`. The code runs in its own process under the plugin host
 * (workers/plugins), never in the app: `api.config` holds only its validated configuration,
 * `api.secret()` only the secrets its manifest declares, and `api.fetch()` (also installed as the
 * global `fetch`) reaches only the hosts its manifest declares, through xclaw's SSRF guard.
 */
export type TPluginRisk = "read" | "write" | "execute" | "external";

/** A JSON Schema of an object (when the plugin does not use zod). */
export type TJsonSchemaObject = { type: "object"; properties?: Record<string, unknown>; required?: string[]; [keyword: string]: unknown };

export type TPluginWorkspaceEntry = { name: string; type: "file" | "directory" | "symlink" | "other"; size?: number };

/**
 * The caller's workspace, for plugins whose manifest declares permissions.workspace. xclaw carries
 * each request out with the same rules as its own file tools (paths inside the workspace, no
 * following links out, size and type limits, a worker's folders). Writing also needs a tool whose
 * risk is write, execute or external, so the approval policy has checked the call.
 */
export type TPluginWorkspace = {
  /** What this call may do: "none", "read" or "write". */
  access: "none" | "read" | "write";
  list(path?: string): Promise<{ path: string; entries: TPluginWorkspaceEntry[] }>;
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<{ path: string; bytes: number; created: boolean }>;
};

export type TPluginToolContext = {
  userId: string;
  sessionId: string;
  /** Aborted when the run stops or the call times out. */
  signal: AbortSignal;
  /** The caller's workspace (every method throws when the manifest or the call does not allow it). */
  workspace: TPluginWorkspace;
};

export type TPluginToolResult = string | { text: string; isError?: boolean };

export type TPluginTool<TInput = Record<string, unknown>> = {
  /** snake_case, declared in the manifest's contracts.tools; the model sees `<plugin>__<name>`. */
  name: string;
  description: string;
  /** A zod object schema or a JSON Schema object. Input is validated before execute runs. */
  input: z.ZodType<TInput> | TJsonSchemaObject;
  /** Feeds xclaw's approval policy: read runs without asking by default, the others ask. */
  risk: TPluginRisk;
  execute(input: TInput, context: TPluginToolContext): Promise<TPluginToolResult> | TPluginToolResult;
};

export type TPluginService = {
  id: string;
  /** Called once when the plugin is enabled (after register). */
  start?(): Promise<void> | void;
  /** Called once when the plugin is disabled, reconfigured, or xclaw shuts down. */
  stop?(): Promise<void> | void;
};

export type TPluginLogger = { info(message: string): void; warn(message: string): void; error(message: string): void };

export type TPluginApi = {
  id: string;
  /** The plugin's configuration, validated against its configSchema (defaults filled in). */
  config: Readonly<Record<string, unknown>>;
  /** A secret the manifest declares in permissions.secrets; any other name throws. */
  secret(name: string): string | undefined;
  /** fetch() to the declared hosts only (the global fetch is this same function). */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  log: TPluginLogger;
  registerTool<TInput = Record<string, unknown>>(tool: TPluginTool<TInput>): void;
  registerService(service: TPluginService): void;
  /** The zod the host runs with, for plugins that do not ship their own. */
  z: typeof z;
};

export type TPluginEntry = {
  id?: string;
  name?: string;
  description?: string;
  register(api: TPluginApi): Promise<void> | void;
};

/** Marks a plugin's entry (types only; the object is returned unchanged). */
export function definePluginEntry<TEntry extends TPluginEntry>(entry: TEntry): TEntry {
  return entry;
}
