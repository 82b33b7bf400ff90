/**
 * The plugin host process: started by `npm run dev` / `npm start` beside the app (or on its own
 * with `npm run plugin-host`). It listens on loopback; every request carries the shared secret.
 *
 *   PLUGIN_HOST_SECRET   required; the app sends it with every request
 *   PLUGIN_HOST_PORT     default plugins.port (0 = any free port)
 *   PLUGIN_HOST_HOST     default 127.0.0.1; only change it behind a private network (its own
 *                        container, which the app reaches by name: compose.yaml)
 *
 * It gets no database URL, auth secret or model keys: the app sends each plugin's configuration
 * and declared secrets when it enables the plugin. SIGTERM / SIGINT stop every plugin's services.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError, getBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { createLogger } from "@/lib/observability/logger";
import { ZPluginSpec, ZToolCallRequest, ZWorkspaceAnswerBody, type TCallStreamLine, type TWorkspaceAnswer } from "@/lib/plugins/host-protocol";
import { PluginHost } from "./plugin-host";
import { onStopRequest } from "../shared/stop-requests";

const log = createLogger("plugin-host");
const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** A workspace request the app has not answered within this long is answered with an error. */
const WORKSPACE_ANSWER_TIMEOUT_MS = 60_000;

/** Workspace requests sent to the app and waiting for its answer: "<callToken> <requestId>" → settle. */
const waitingForApp = new Map<string, (answer: TWorkspaceAnswer) => void>();

function fail(message: string): never {
  process.stderr.write(`\nxclaw plugin host: ${message}\n\n`);
  process.send?.({ type: "failed", reason: message.split("\n")[0] });
  process.exit(1);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_BODY_BYTES) throw Object.assign(new Error("request body too large"), { status: 413 });
    chunks.push(chunk);
  }
  return total ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

function reply(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}

async function main() {
  let port: number;
  let variables;
  try {
    variables = environment();
    port = variables.PLUGIN_HOST_PORT ?? getBehaviourConfig().plugins.port;
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const secret = Buffer.from(variables.PLUGIN_HOST_SECRET ?? "");
  if (secret.length < 16) fail("PLUGIN_HOST_SECRET must be set to a random string of at least 16 characters.");
  const host = new PluginHost(log);

  const server = createServer((request, response) => {
    const given = Buffer.from((request.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (given.length !== secret.length || !timingSafeEqual(given, secret)) return reply(response, 401, { error: "unauthorized" });
    const url = new URL(request.url ?? "/", "http://plugin-host");
    const match = /^\/v1\/plugins(?:\/([a-z0-9_-]{1,40}))?(\/call)?$/.exec(url.pathname);
    void (async () => {
      try {
        if (url.pathname === "/v1/health") return reply(response, 200, { ok: true });
        const answerPath = /^\/v1\/calls\/([0-9a-f-]{36})\/workspace$/.exec(url.pathname);
        if (answerPath && request.method === "POST") {
          const answer = ZWorkspaceAnswerBody.parse(await readBody(request));
          const settle = waitingForApp.get(`${answerPath[1]} ${answer.requestId}`);
          if (!settle) return reply(response, 404, { error: "no such workspace request (the call may have ended)" });
          settle(answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error });
          return reply(response, 200, { ok: true });
        }
        if (!match) return reply(response, 404, { error: "not found" });
        const [, id, call] = match;
        if (!id && request.method === "GET") return reply(response, 200, { plugins: host.list() });
        if (id && !call && request.method === "PUT") {
          const spec = ZPluginSpec.parse(await readBody(request));
          if (spec.id !== id) return reply(response, 400, { error: "the id in the path and the body differ" });
          return reply(response, 200, await host.load(spec));
        }
        if (id && !call && request.method === "DELETE") {
          await host.unload(id);
          return reply(response, 200, { ok: true });
        }
        if (id && call && request.method === "POST") {
          const body = ZToolCallRequest.parse(await readBody(request));
          const aborted = new AbortController();
          // The app gave up on the call (run stopped): tell the plugin.
          response.on("close", () => {
            if (!response.writableFinished) aborted.abort();
          });
          // Newline-delimited JSON: the plugin's workspace requests for the app to carry out, then the result.
          response.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
          const write = (line: TCallStreamLine) => response.write(`${JSON.stringify(line)}\n`);
          const callToken = randomUUID();
          let nextRequestId = 1;
          const mine = new Set<string>();
          const onWorkspace = (workspaceRequest: Extract<TCallStreamLine, { type: "workspace" }>["request"]) =>
            new Promise<TWorkspaceAnswer>((resolve) => {
              const requestId = nextRequestId++;
              const key = `${callToken} ${requestId}`;
              const timer = setTimeout(() => settle({ ok: false, error: "The app did not carry out the workspace request in time." }), WORKSPACE_ANSWER_TIMEOUT_MS);
              const settle = (answer: TWorkspaceAnswer) => {
                clearTimeout(timer);
                waitingForApp.delete(key);
                mine.delete(key);
                resolve(answer);
              };
              waitingForApp.set(key, settle);
              mine.add(key);
              write({ type: "workspace", callToken, requestId, request: workspaceRequest });
            });
          try {
            const result = await host.call(id, body.tool, body.input, body.context, aborted.signal, { access: body.workspace, onWorkspace });
            write({ type: "result", ...result });
          } finally {
            for (const key of mine) waitingForApp.get(key)?.({ ok: false, error: "The call has ended." });
            response.end();
          }
          return;
        }
        return reply(response, 405, { error: "method not allowed" });
      } catch (error) {
        if (response.headersSent) return void response.end();
        const status = (error as { status?: number }).status ?? 400;
        reply(response, status, { error: error instanceof Error ? error.message.slice(0, 500) : "bad request" });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, environment().PLUGIN_HOST_HOST, resolve);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  log.info("plugin host ready", { url });
  process.send?.({ type: "ready", url });

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info("plugin host stopping", { why });
    setTimeout(() => process.exit(1), 30_000).unref();
    server.close();
    await host.shutdown();
    process.exit(0);
  };
  // Started by the launcher: it says when (after the app has drained); alone: SIGTERM / SIGINT.
  onStopRequest((why) => void stop(why));
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
