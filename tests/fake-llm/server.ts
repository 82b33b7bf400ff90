import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setMaxListeners } from "node:events";
import { setTimeout as sleepFor } from "node:timers/promises";
import { anthropicErrorBody, anthropicMessageBody, anthropicStreamEvents } from "./anthropic-responses";
import { embeddingsResponse } from "./embeddings";
import { openAiCompletionBody, openAiErrorBody, openAiModelsBody, openAiStreamEvents } from "./openai-responses";
import { estimateTokens, splitIntoPieces } from "./text-pieces";
import type { TFakeApi, TFakeLlm, TFakeReply, TFakeScript, TRecordedRequest, TResolvedReply } from "./types";

export type { TFakeApi, TFakeLlm, TFakeReply, TFakeScript, TFakeToolCall, TRecordedRequest } from "./types";

/**
 * A real HTTP server that speaks enough of the OpenAI Chat Completions / Embeddings and the
 * Anthropic Messages APIs for the official SDKs to accept its answers, so tests exercise the same
 * client code as production without keys or network. See README.md in this folder.
 */
export async function startFakeLlm(options: { port?: number } = {}): Promise<TFakeLlm> {
  const sockets = new Set<Socket>();
  // Aborted by close() so that replies sleeping in delayMs/chunkDelayMs wake up and give up at once.
  const lifetime = new AbortController();
  // Every sleeping reply listens to it; hundreds at once are expected in load benchmarks.
  setMaxListeners(0, lifetime.signal);
  const requests: TRecordedRequest[] = [];
  let script: TFakeScript = [];
  let scriptedRequestCount = 0;
  let toolCallCount = 0;
  let responseCount = 0;

  function nextReply(request: TRecordedRequest): TFakeReply | Promise<TFakeReply> | undefined {
    return typeof script === "function" ? script(request) : script.shift();
  }

  function resolveReply(api: "openai" | "anthropic", reply: TFakeReply, body: Record<string, unknown>): TResolvedReply {
    const text = reply.text ?? "";
    const toolCalls = (reply.toolCalls ?? []).map((call) => {
      toolCallCount++;
      const argumentsJson = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      return {
        id: call.id ?? (api === "openai" ? `call_${toolCallCount}` : `toolu_${toolCallCount}`),
        name: call.name,
        argumentsJson,
        argumentPieces: splitIntoPieces(argumentsJson),
      };
    });
    responseCount++;
    const promptText = JSON.stringify([body.system ?? null, body.messages ?? null, body.tools ?? null]);
    const completionText = text + toolCalls.map((call) => call.name + call.argumentsJson).join("");
    return {
      text,
      textPieces: splitIntoPieces(text, reply.chunks),
      toolCalls,
      usage: reply.usage ?? { inputTokens: estimateTokens(promptText), outputTokens: estimateTokens(completionText) },
      stopReason: reply.stopReason,
      responseId: api === "openai" ? `chatcmpl-${responseCount}` : `msg_${responseCount}`,
      model: typeof body.model === "string" ? body.model : "fake-model",
      created: Math.floor(Date.now() / 1000),
    };
  }

  async function sendReply(api: "openai" | "anthropic", reply: TFakeReply, body: Record<string, unknown>, response: ServerResponse) {
    if (reply.hang) return;
    if (reply.delayMs) await sleep(reply.delayMs, lifetime.signal);
    if (isGone(response)) return;
    const extraHeaders = reply.headers ?? {};
    if (reply.status !== undefined) {
      const message = reply.errorMessage ?? `fake-llm: scripted error ${reply.status}`;
      sendJson(response, reply.status, api === "openai" ? openAiErrorBody(reply.status, message) : anthropicErrorBody(reply.status, message), extraHeaders);
      return;
    }
    const resolved = resolveReply(api, reply, body);
    if (body.stream !== true) {
      const payload = api === "openai" ? openAiCompletionBody(resolved) : anthropicMessageBody(resolved);
      if (reply.breakAfterChunks === undefined) return sendJson(response, 200, payload, extraHeaders);
      const text = JSON.stringify(payload);
      response.writeHead(200, { "content-type": "application/json", ...requestIdHeaders(), ...extraHeaders });
      await write(response, text.slice(0, Math.floor(text.length / 2)));
      response.destroy();
      return;
    }
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    const events = api === "openai" ? openAiStreamEvents(resolved, streamOptions?.include_usage === true) : anthropicStreamEvents(resolved);
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...requestIdHeaders(), ...extraHeaders });
    response.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (reply.breakAfterChunks !== undefined && index >= reply.breakAfterChunks) break;
      if (index > 0 && reply.chunkDelayMs) await sleep(reply.chunkDelayMs, lifetime.signal);
      if (isGone(response)) return;
      await write(response, event);
    }
    if (reply.breakAfterChunks !== undefined && reply.breakAfterChunks < events.length) {
      // Without a terminating chunk the client sees a truncated body, as when a proxy or the provider drops the connection.
      await new Promise((resolve) => setImmediate(resolve));
      response.destroy();
      return;
    }
    response.end();
  }

  // Lets a test in another process (Playwright specs) script this server over HTTP.
  async function handleControl(request: IncomingMessage, path: string, response: ServerResponse) {
    if (request.method === "GET" && path === "/_control/requests") return sendJson(response, 200, { requests });
    if (request.method !== "POST") return sendJson(response, 405, { error: "use POST" });
    if (path === "/_control/reset") {
      fake.reset();
      return sendJson(response, 200, { ok: true });
    }
    if (path === "/_control/script") {
      const body = JSON.parse((await readBody(request)) || "{}") as { replies?: TFakeReply[] };
      if (!Array.isArray(body.replies)) return sendJson(response, 400, { error: "send {replies: [...]}" });
      fake.script(body.replies);
      return sendJson(response, 200, { ok: true, queued: body.replies.length });
    }
    return sendJson(response, 404, { error: `no control route ${path}` });
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (path.startsWith("/_control/")) return handleControl(request, path, response);
    const api = routeOf(request.method ?? "GET", path);
    if (request.method === "GET" && path === "/v1/models") return sendJson(response, 200, openAiModelsBody(Math.floor(Date.now() / 1000)));
    if (!api) return sendJson(response, 404, openAiErrorBody(404, `fake-llm: no route for ${request.method} ${path}`));

    const rawBody = await readBody(request);
    let body: unknown;
    let bodyIsJson = true;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = rawBody;
      bodyIsJson = false;
    }
    const recorded: TRecordedRequest = { api, path, headers: lowerCasedHeaders(request), body, receivedAt: Date.now() };
    requests.push(recorded);
    const errorBody = (status: number, message: string) => (api === "anthropic" ? anthropicErrorBody(status, message) : openAiErrorBody(status, message));
    if (!bodyIsJson || typeof body !== "object" || body === null) return sendJson(response, 400, errorBody(400, "fake-llm: request body is not a JSON object"));
    const bodyObject = body as Record<string, unknown>;

    if (api === "openai-embeddings") return sendJson(response, 200, embeddingsResponse(bodyObject));

    // Counted and taken synchronously with the log entry, so concurrent requests consume the script in log order.
    scriptedRequestCount++;
    const requestNumber = scriptedRequestCount;
    let reply: TFakeReply | undefined;
    try {
      reply = await nextReply(recorded);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return sendJson(response, 500, errorBody(500, `fake-llm: the script function threw for request ${requestNumber}: ${message}`));
    }
    if (!reply) {
      return sendJson(response, 500, errorBody(500, `fake-llm: no scripted reply left for request ${requestNumber} (${request.method} ${path})`));
    }
    await sendReply(api, reply, bodyObject, response);
  }

  const server = createServer((request, response) => {
    // Writing to a socket the client (or close()) already dropped is expected here, not a failure.
    response.on("error", () => {});
    handle(request, response).catch((error: unknown) => {
      if (isGone(response)) return;
      if (response.headersSent) return void response.destroy();
      sendJson(response, 500, openAiErrorBody(500, `fake-llm internal error: ${error instanceof Error ? error.stack : String(error)}`));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const fake: TFakeLlm = {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    script(replies) {
      // Copied so that consuming the queue never mutates the array the test still holds.
      script = Array.isArray(replies) ? [...replies] : replies;
    },
    reset() {
      script = [];
      // Emptied in place: tests may keep a reference to `requests`.
      requests.length = 0;
      scriptedRequestCount = 0;
      toolCallCount = 0;
      responseCount = 0;
    },
    async close() {
      lifetime.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Hung and keep-alive connections would otherwise keep server.close() waiting forever.
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
  return fake;
}

function routeOf(method: string, path: string): TFakeApi | undefined {
  if (method !== "POST") return undefined;
  if (path === "/v1/chat/completions") return "openai";
  if (path === "/v1/messages") return "anthropic";
  if (path === "/v1/embeddings") return "openai-embeddings";
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function lowerCasedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function isGone(response: ServerResponse): boolean {
  return response.destroyed || response.writableEnded || Boolean(response.socket?.destroyed);
}

let requestIdCount = 0;

/** OpenAI's SDK reads x-request-id and Anthropic's reads request-id into error objects and logs. */
function requestIdHeaders(): Record<string, string> {
  requestIdCount++;
  const id = `req_fake_${requestIdCount}`;
  return { "x-request-id": id, "request-id": id };
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (isGone(response)) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...requestIdHeaders(),
    ...headers,
  });
  response.end(text);
}

/** Resolves once the data reached the socket, so a following destroy() cannot discard it. */
function write(response: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (isGone(response)) return resolve();
    response.write(data, () => resolve());
  });
}

async function sleep(milliseconds: number, signal: AbortSignal) {
  try {
    await sleepFor(milliseconds, undefined, { signal });
  } catch {
    // Aborted by close(): the caller sees the destroyed response and stops.
  }
}
