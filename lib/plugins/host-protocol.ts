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

export const ZToolCallRequest = z.object({
  tool: z.string(),
  input: z.unknown(),
  context: z.object({ userId: z.string(), sessionId: z.string() }),
});

export const ZToolCallResponse = z.object({ text: z.string(), isError: z.boolean() });
export type TToolCallResponse = z.infer<typeof ZToolCallResponse>;

/** Messages over the IPC channel of one plugin process. */
export type THostToPlugin =
  | { type: "init"; id: string; directory: string; entry: string; manifest: Record<string, unknown>; config: Record<string, unknown>; secrets: Record<string, string> }
  | { type: "call"; callId: number; tool: string; input: unknown; context: { userId: string; sessionId: string } }
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
  | { type: "log"; level: "info" | "warn" | "error"; message: string }
  | { type: "pong"; pingId: number }
  | { type: "stopped" };

/** Identifies a spec: the host reloads a plugin only when this changes. */
export function specHashOf(spec: TPluginSpec): string {
  return createHash("sha256").update(JSON.stringify(ZPluginSpec.parse(spec))).digest("hex");
}
