import path from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { z } from "zod";
import type { THostToPlugin, TPluginToHost, TToolDeclaration, TWorkspaceAnswer, TWorkspaceRequest } from "../../lib/plugins/host-protocol";
import type { TPluginApi, TPluginEntry, TPluginService, TPluginTool, TPluginToolResult, TPluginWorkspace, TPluginWorkspaceEntry } from "../../lib/plugins/sdk";

/**
 * One plugin's own process, started by the plugin host with an empty environment. It receives its
 * configuration and declared secrets over IPC, imports the plugin's entry, runs `register(api)`,
 * starts the registered services and then answers tool calls until it is told to stop. Nothing
 * here is a security boundary on its own (the host and the OS are, see SECURITY.md): this file
 * makes the declared limits the easy path and reports every departure from them clearly.
 */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,47}$/;
const RISKS = new Set(["read", "write", "execute", "external"]);
const REGISTER_TIMEOUT_MS = 15_000;
const SERVICE_TIMEOUT_MS = 15_000;

function send(message: TPluginToHost) {
  process.send?.(message);
}

class PluginLoadError extends Error {}

type TRegisteredTool = { tool: TPluginTool<Record<string, unknown>>; validate: (input: unknown) => { ok: true; value: Record<string, unknown> } | { ok: false; error: string } };

const tools = new Map<string, TRegisteredTool>();
const services: TPluginService[] = [];
const startedServices: TPluginService[] = [];
const calls = new Map<number, AbortController>();
const fetches = new Map<number, { resolve: (response: Response) => void; reject: (error: Error) => void }>();
let nextFetchId = 1;
const workspaceRequests = new Map<number, (answer: TWorkspaceAnswer) => void>();
let nextWorkspaceRequestId = 1;
let registering = false;

function withTimeout<T>(promise: Promise<T> | T, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PluginLoadError(`${what} did not finish within ${ms / 1000} s`)), ms);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** fetch() through the host, which checks the declared hosts and the SSRF rules. */
async function hostFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const request = new Request(input, init);
  const body = request.body ? Buffer.from(await request.arrayBuffer()).toString("base64") : null;
  const fetchId = nextFetchId++;
  const answer = new Promise<Response>((resolve, reject) => fetches.set(fetchId, { resolve, reject }));
  send({ type: "fetch", fetchId, url: request.url, method: request.method, headers: [...request.headers], body });
  return answer;
}

/** The caller's workspace for one call: every request goes through the host to the app. */
function workspaceFor(call: Extract<THostToPlugin, { type: "call" }>): TPluginWorkspace {
  const ask = async (request: TWorkspaceRequest): Promise<unknown> => {
    const requestId = nextWorkspaceRequestId++;
    const answer = await new Promise<TWorkspaceAnswer>((resolve) => {
      workspaceRequests.set(requestId, resolve);
      send({ type: "workspace", callId: call.callId, requestId, request });
    });
    if (!answer.ok) throw new Error(answer.error);
    return answer.value;
  };
  return {
    access: call.workspace,
    list: async (path = ".") => (await ask({ op: "list", path })) as { path: string; entries: TPluginWorkspaceEntry[] },
    readText: async (path) => ((await ask({ op: "read", path })) as { text: string }).text,
    writeText: async (path, text) => (await ask({ op: "write", path, text })) as { path: string; bytes: number; created: boolean },
  };
}

function jsonSchemaValidator(schema: Record<string, unknown>): TRegisteredTool["validate"] {
  const validate = new Ajv({ strict: false, allErrors: false, useDefaults: true }).compile(schema);
  return (input) => {
    const value = structuredClone(input ?? {}) as Record<string, unknown>;
    if (validate(value)) return { ok: true, value };
    const problem = validate.errors?.[0];
    return { ok: false, error: `${problem?.instancePath || "input"} ${problem?.message ?? "is not valid"}` };
  };
}

function buildApi(init: Extract<THostToPlugin, { type: "init" }>, declaredTools: Set<string>, declaredSecrets: Set<string>): TPluginApi {
  const log = (level: "info" | "warn" | "error") => (message: string) => send({ type: "log", level, message: String(message).slice(0, 2_000) });
  return {
    id: init.id,
    config: Object.freeze({ ...init.config }),
    secret(name: string) {
      if (!declaredSecrets.has(name)) {
        throw new Error(`The plugin ${init.id} asked for the secret ${name}, which its manifest does not declare (permissions.secrets); refused.`);
      }
      return init.secrets[name];
    },
    fetch: hostFetch,
    log: { info: log("info"), warn: log("warn"), error: log("error") },
    registerTool(tool) {
      if (!registering) throw new PluginLoadError(`registerTool("${tool?.name}") was called after register() finished`);
      if (!tool || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) throw new PluginLoadError(`a tool name must be snake_case (got ${JSON.stringify(tool?.name)})`);
      if (!declaredTools.has(tool.name)) throw new PluginLoadError(`the tool "${tool.name}" is not declared in the manifest's contracts.tools`);
      if (tools.has(tool.name)) throw new PluginLoadError(`the tool "${tool.name}" was registered twice`);
      if (!RISKS.has(tool.risk)) throw new PluginLoadError(`the tool "${tool.name}" has no valid risk (read, write, execute or external)`);
      if (typeof tool.description !== "string" || !tool.description.trim()) throw new PluginLoadError(`the tool "${tool.name}" has no description`);
      if (typeof tool.execute !== "function") throw new PluginLoadError(`the tool "${tool.name}" has no execute function`);
      let validate: TRegisteredTool["validate"];
      if (isZodSchema(tool.input)) {
        const schema = tool.input as z.ZodType<Record<string, unknown>>;
        validate = (input) => {
          const parsed = schema.safeParse(input ?? {});
          return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ") };
        };
      } else if (tool.input && typeof tool.input === "object" && (tool.input as { type?: unknown }).type === "object") {
        try {
          validate = jsonSchemaValidator(tool.input as Record<string, unknown>);
        } catch (error) {
          throw new PluginLoadError(`the input schema of "${tool.name}" is not a valid JSON Schema: ${(error as Error).message}`);
        }
      } else throw new PluginLoadError(`the input of "${tool.name}" must be a zod object schema or a JSON Schema with "type": "object"`);
      tools.set(tool.name, { tool: tool as unknown as TPluginTool<Record<string, unknown>>, validate });
    },
    registerService(service) {
      if (!registering) throw new PluginLoadError(`registerService("${service?.id}") was called after register() finished`);
      if (!service || typeof service.id !== "string" || !service.id) throw new PluginLoadError("a service needs an id");
      if (services.some((existing) => existing.id === service.id)) throw new PluginLoadError(`the service "${service.id}" was registered twice`);
      services.push(service);
    },
    z,
  };
}

/** zod 4 schemas carry `_zod`; checked by shape so a plugin's own copy of zod works too. */
function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

function declaration(name: string, registered: TRegisteredTool): TToolDeclaration {
  const { tool } = registered;
  const inputSchema =
    isZodSchema(tool.input) ? (z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<string, unknown>) : (tool.input as Record<string, unknown>);
  delete inputSchema.$schema;
  return { name, description: tool.description, inputSchema, risk: tool.risk };
}

async function load(init: Extract<THostToPlugin, { type: "init" }>) {
  const manifest = init.manifest as { contracts?: { tools?: string[] }; permissions?: { secrets?: string[] } };
  const api = buildApi(init, new Set(manifest.contracts?.tools ?? []), new Set(manifest.permissions?.secrets ?? []));
  // Libraries inside the plugin that call fetch() go through the host too.
  globalThis.fetch = hostFetch as typeof fetch;
  const entryPath = path.resolve(init.directory, init.entry);
  if (!entryPath.startsWith(`${path.resolve(init.directory)}${path.sep}`)) throw new PluginLoadError("the entry is outside the plugin's folder");
  const imported = (await import(pathToFileURL(entryPath).href)) as { default?: TPluginEntry | ((api: TPluginApi) => unknown) };
  const entry = imported.default;
  const register = typeof entry === "function" ? entry : entry?.register?.bind(entry);
  if (typeof register !== "function") throw new PluginLoadError(`${init.entry} must export default an object with a register(api) function`);
  registering = true;
  try {
    await withTimeout(register(api), REGISTER_TIMEOUT_MS, "register()");
  } finally {
    registering = false;
  }
  for (const service of services) {
    await withTimeout(service.start?.(), SERVICE_TIMEOUT_MS, `starting the service "${service.id}"`);
    startedServices.push(service);
  }
  send({ type: "ready", tools: [...tools].map(([name, registered]) => declaration(name, registered)), services: services.map((service) => service.id) });
}

async function call(message: Extract<THostToPlugin, { type: "call" }>) {
  const registered = tools.get(message.tool);
  if (!registered) return send({ type: "result", callId: message.callId, text: `The plugin has no tool "${message.tool}".`, isError: true });
  const checked = registered.validate(message.input);
  if (!checked.ok) return send({ type: "result", callId: message.callId, text: `Invalid input: ${checked.error}`, isError: true });
  const controller = new AbortController();
  calls.set(message.callId, controller);
  try {
    const result: TPluginToolResult = await registered.tool.execute(checked.value, { ...message.context, signal: controller.signal, workspace: workspaceFor(message) });
    const text = typeof result === "string" ? result : String(result?.text ?? "");
    send({ type: "result", callId: message.callId, text, isError: typeof result === "object" && result?.isError === true });
  } catch (error) {
    send({ type: "result", callId: message.callId, text: `The tool failed: ${error instanceof Error ? error.message : String(error)}`, isError: true });
  } finally {
    calls.delete(message.callId);
  }
}

async function stop() {
  for (const service of [...startedServices].reverse()) {
    try {
      await withTimeout(service.stop?.(), SERVICE_TIMEOUT_MS, `stopping the service "${service.id}"`);
    } catch (error) {
      send({ type: "log", level: "warn", message: `service ${service.id} did not stop cleanly: ${(error as Error).message}` });
    }
  }
  startedServices.length = 0;
  send({ type: "stopped" });
  process.disconnect?.();
  setTimeout(() => process.exit(0), 50).unref();
}

process.on("message", (message: THostToPlugin) => {
  switch (message.type) {
    case "init":
      load(message).catch((error: unknown) => {
        send({ type: "failed", error: error instanceof Error ? error.message : String(error) });
        setTimeout(() => process.exit(1), 50).unref();
      });
      break;
    case "call":
      void call(message);
      break;
    case "cancel":
      calls.get(message.callId)?.abort(new Error("The call was cancelled."));
      break;
    case "fetch-result": {
      const waiting = fetches.get(message.fetchId);
      fetches.delete(message.fetchId);
      if (!waiting) break;
      if (message.ok) {
        const body = message.status === 204 || message.status === 304 ? null : Buffer.from(message.body, "base64");
        waiting.resolve(new Response(body, { status: message.status, statusText: message.statusText, headers: message.headers }));
      } else waiting.reject(new Error(message.error));
      break;
    }
    case "workspace-result": {
      const waiting = workspaceRequests.get(message.requestId);
      workspaceRequests.delete(message.requestId);
      waiting?.(message.answer);
      break;
    }
    case "ping":
      send({ type: "pong", pingId: message.pingId });
      break;
    case "stop":
      void stop();
      break;
  }
});

// The host is the only way in: when it goes away, so does the plugin.
process.on("disconnect", () => process.exit(0));
process.on("uncaughtException", (error) => {
  send({ type: "log", level: "error", message: `uncaught exception: ${error.message}` });
  process.exit(70);
});
process.on("unhandledRejection", (reason) => {
  send({ type: "log", level: "error", message: `unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}` });
  process.exit(70);
});
