import { createHash } from "node:crypto";
import { z } from "zod";

/**
 * The small protocol between the app and the plugin host (loopback HTTP with a shared secret, like
 * the browser worker), and between the host and each plugin's own process (Node IPC). The app
 * holds no plugin objects: it sends what a plugin may have (its folder, configuration, declared
 * secrets and hosts) and gets back what it registered and what its tools answered.
 */
export const ZToolDeclaration = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  risk: z.enum(["read", "write", "execute", "external"]),
});
export type TToolDeclaration = z.infer<typeof ZToolDeclaration>;

export const ZPluginSpec = z.object({
  id: z.string(),
  directory: z.string(),
  entry: z.string(),
  /** When set, the host checks the folder against it before starting the code. */
  sha256: z.string().nullable(),
  /** The manifest as validated by the app (the host validates it again). */
  manifest: z.record(z.string(), z.unknown()),
  config: z.record(z.string(), z.unknown()),
  /** Only the secrets the manifest declares: name → value. */
  secrets: z.record(z.string(), z.string()),
  /** Hosts the plugin's requests may reach (declared ones plus those of hostsFromConfig settings). */
  allowedHosts: z.array(z.string()),
  allowedPrivateHosts: z.array(z.string()),
  callTimeoutMs: z.int().min(100).max(600_000),
  maxCrashes: z.int().min(1).max(100),
});
export type TPluginSpec = z.infer<typeof ZPluginSpec>;

export const PLUGIN_STATUSES = ["starting", "running", "restarting", "failed", "stopped"] as const;
export type TPluginRuntimeStatus = (typeof PLUGIN_STATUSES)[number];

export const ZPluginState = z.object({
  id: z.string(),
  status: z.enum(PLUGIN_STATUSES),
  lastError: z.string().nullable(),
  tools: z.array(ZToolDeclaration),
  services: z.array(z.string()),
  crashes: z.int(),
  /** Identifies the spec this state belongs to (the app compares it to decide whether to reload). */
  specHash: z.string(),
});
export type TPluginState = z.infer<typeof ZPluginState>;

/**
 * What one call may do in the caller's workspace: the manifest's permissions.workspace, except that
 * writing needs a tool whose risk makes the approval policy ask (plugin-workspace.ts).
 */
export const WORKSPACE_ACCESS = ["none", "read", "write"] as const;
export type TWorkspaceAccess = (typeof WORKSPACE_ACCESS)[number];

export const ZToolCallRequest = z.object({
  tool: z.string(),
  input: z.unknown(),
  context: z.object({ userId: z.string(), sessionId: z.string() }),
  workspace: z.enum(WORKSPACE_ACCESS).default("none"),
});

export type TToolCallResponse = { text: string; isError: boolean };

/**
 * A plugin's request for the caller's workspace. The app carries it out with the same workspace
 * object (paths, links, limits, a worker's folders) as its own file tools; the plugin never
 * touches the files itself.
 */
export const ZWorkspaceRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("list"), path: z.string().max(1_024) }),
  z.object({ op: z.literal("read"), path: z.string().max(1_024) }),
  z.object({ op: z.literal("write"), path: z.string().max(1_024), text: z.string() }),
]);
export type TWorkspaceRequest = z.infer<typeof ZWorkspaceRequest>;
export type TWorkspaceAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The host answers a call with newline-delimited JSON: a workspace request for the app to carry
 * out (answered at /v1/calls/<callToken>/workspace), any number of times, then the result.
 */
export const ZCallStreamLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workspace"), callToken: z.string(), requestId: z.int(), request: ZWorkspaceRequest }),
  z.object({ type: z.literal("result"), text: z.string(), isError: z.boolean() }),
]);
export type TCallStreamLine = z.infer<typeof ZCallStreamLine>;

export const ZWorkspaceAnswerBody = z.union([
  z.object({ requestId: z.int(), ok: z.literal(true), value: z.unknown() }),
  z.object({ requestId: z.int(), ok: z.literal(false), error: z.string() }),
]);

/** Messages over the IPC channel of one plugin process. */
export type THostToPlugin =
  | { type: "init"; id: string; directory: string; entry: string; manifest: Record<string, unknown>; config: Record<string, unknown>; secrets: Record<string, string> }
  | { type: "call"; callId: number; tool: string; input: unknown; context: { userId: string; sessionId: string }; workspace: TWorkspaceAccess }
  | { type: "workspace-result"; requestId: number; answer: TWorkspaceAnswer }
  | { type: "cancel"; callId: number }
  | { type: "fetch-result"; fetchId: number; ok: true; status: number; statusText: string; headers: [string, string][]; body: string }
  | { type: "fetch-result"; fetchId: number; ok: false; error: string }
  | { type: "ping"; pingId: number }
  | { type: "stop" };

export type TPluginToHost =
  | { type: "ready"; tools: TToolDeclaration[]; services: string[] }
  | { type: "failed"; error: string }
  | { type: "result"; callId: number; text: string; isError: boolean }
  | { type: "fetch"; fetchId: number; url: string; method: string; headers: [string, string][]; body: string | null }
  | { type: "workspace"; callId: number; requestId: number; request: TWorkspaceRequest }
  | { type: "log"; level: "info" | "warn" | "error"; message: string }
  | { type: "pong"; pingId: number }
  | { type: "stopped" };

/** Identifies a spec: the host reloads a plugin only when this changes. */
export function specHashOf(spec: TPluginSpec): string {
  return createHash("sha256").update(JSON.stringify(ZPluginSpec.parse(spec))).digest("hex");
}
