import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stampPeerAddress } from "@/lib/auth/client-ip";
import { serveChat } from "@/lib/channels/web/serve-chat";
import { db } from "@/lib/db/client";
import { installServerHook } from "@/lib/http/server-hook";
import { API_CONTENT_SECURITY_POLICY } from "@/lib/http/security-headers";
import { waitForRun } from "@/lib/runs/local-runs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { chatResponse, clearProviderEnvironment, newSession, useFakeProvider } from "../support/chat";
import { createUser, ORIGIN } from "../support/http";
import { readUiStream } from "../support/ui-stream";

/**
 * POST /api/chat as a production server answers it: by the Node route installed in front of the
 * server (lib/http/server-hook.ts), over a real TCP connection. The listener behind it stands in for
 * Next.js: whatever the hook does not answer must reach it untouched. The route handler
 * (app/api/chat/route.ts) is the reference: the Node route must send the same stream.
 */
let fake: TFakeLlm;
let server: http.Server;
let port: number;
const reachedNext: string[] = [];

beforeAll(async () => {
  fake = await startFakeLlm();
  installServerHook({
    prepare: stampPeerAddress,
    routes: {
      "POST /api/chat": serveChat,
      // A route that fails outside its own error handling: the hook must still answer.
      "POST /api/broken": async () => {
        throw new Error("broken on purpose");
      },
    },
  });
  server = http.createServer((incoming, outgoing) => {
    reachedNext.push(`${incoming.method} ${incoming.url}`);
    outgoing.writeHead(200, { "content-type": "text/plain" }).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});
beforeEach(() => {
  useFakeProvider(fake);
  reachedNext.length = 0;
});
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

type TAnswer = { status: number; headers: http.IncomingHttpHeaders; text: string };

/** One request over a fresh connection, as a browser on our own page would send it (cookie, Origin). */
function send(options: { method?: string; path?: string; cookie?: string; body?: string | Buffer; headers?: Record<string, string>; onResponse?: (request: http.ClientRequest, response: http.IncomingMessage) => void }): Promise<TAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: "localhost:3000", origin: ORIGIN, "content-type": "application/json", connection: "close", ...options.headers };
    if (options.cookie) headers.cookie = options.cookie;
    const request = http.request({ host: "127.0.0.1", port, method: options.method ?? "POST", path: options.path ?? "/api/chat", headers, agent: false }, (response) => {
      options.onResponse?.(request, response);
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on("error", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      response.on("aborted", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    request.end(options.body);
  });
}

/** A stream's bytes with what differs between two runs (ids, times, the fake's call counter) replaced. */
function normalized(text: string): string {
  return text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>").replace(/"durationMs":\d+/g, '"durationMs":0')
    .replace(/"call_\d+"/g, '"call_<n>"');
}

const asResponse = (answer: TAnswer) => new Response(answer.text, { status: answer.status });

describe("POST /api/chat answered before Next.js", () => {
  it("streams the same bytes and headers as the route handler, and persists the exchange", async () => {
    const { cookie, user } = await createUser();
    const reply = { text: "Six times seven is 42.", chunks: 3 };
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, reply]);
    const viaNode = await send({ cookie, body: JSON.stringify({ sessionId: await newSession(cookie), text: "What is 6*7?" }) });
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, reply]);
    const viaHandler = await chatResponse(cookie, await newSession(cookie), "What is 6*7?");

    expect(viaNode.status).toBe(200);
    expect(reachedNext).toEqual([]);
    expect(normalized(viaNode.text)).toBe(normalized(await viaHandler.text()));
    const { text, tools } = await readUiStream(asResponse(viaNode));
    expect(text).toBe("Six times seven is 42.");
    expect(tools.map((chunk) => chunk.type)).toEqual(["tool-input-available", "tool-output-available"]);
    // The handler's headers, and those next.config.ts adds to every API answer.
    for (const name of ["content-type", "cache-control", "x-vercel-ai-ui-message-stream", "x-accel-buffering"]) {
      expect(viaNode.headers[name], name).toBe(viaHandler.headers.get(name) ?? undefined);
    }
    expect(viaNode.headers["content-type"]).toContain("text/event-stream");
    expect(viaNode.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(viaNode.headers["x-content-type-options"]).toBe("nosniff");
    expect(viaNode.headers["x-frame-options"]).toBe("DENY");
    expect(viaNode.headers["content-security-policy"]).toBe(API_CONTENT_SECURITY_POLICY);

    const sessions = await db().chatSession.findMany({ where: { userId: user.id }, orderBy: { createdAt: "asc" } });
    expect(sessions.map((session) => session.status)).toEqual(["SUCCESS", "SUCCESS"]);
    const steps = await db().step.findMany({ where: { sessionId: sessions[0]!.id }, orderBy: { seq: "asc" } });
    expect(steps.map((step) => [step.type, step.status])).toEqual([
      ["USER_INPUT", "COMPLETED"],
      ["MODEL_CALL", "COMPLETED"],
      ["TOOL_CALL", "COMPLETED"],
      ["MODEL_CALL", "COMPLETED"],
    ]);
  });

  it("answers bad requests with the route wrapper's JSON errors, the API headers and no run", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const otherUsersSession = await newSession((await createUser()).cookie);
    const cases: [string, Parameters<typeof send>[0], number, string][] = [
      ["no credentials", { body: JSON.stringify({ sessionId, text: "hi" }) }, 401, "unauthorized"],
      ["a cross-site page", { cookie, headers: { origin: "https://evil.example" }, body: JSON.stringify({ sessionId, text: "hi" }) }, 403, "forbidden"],
      ["not JSON", { cookie, headers: { "content-type": "text/plain" }, body: JSON.stringify({ sessionId, text: "hi" }) }, 415, "unsupported_media_type"],
      ["broken JSON", { cookie, body: "{" }, 400, "bad_request"],
      ["no text", { cookie, body: JSON.stringify({ sessionId }) }, 400, "bad_request"],
      ["no such session", { cookie, body: JSON.stringify({ sessionId: crypto.randomUUID(), text: "hi" }) }, 404, "not_found"],
      ["another user's session", { cookie, body: JSON.stringify({ sessionId: otherUsersSession, text: "hi" }) }, 404, "not_found"],
      ["a body over the limit", { cookie, body: Buffer.alloc(2 * 1024 * 1024, "a") }, 413, "payload_too_large"],
    ];
    for (const [what, request, status, code] of cases) {
      const answer = await send(request);
      expect(answer.status, what).toBe(status);
      expect(JSON.parse(answer.text).error.code, what).toBe(code);
      expect(answer.headers["content-security-policy"], what).toBe(API_CONTENT_SECURITY_POLICY);
      expect(answer.headers["x-request-id"], what).toBeDefined();
      expect(answer.headers["cache-control"], what).toBe("no-store");
    }
    expect(fake.requests).toHaveLength(0);
    expect(reachedNext).toEqual([]);
    expect(await db().step.count({ where: { sessionId } })).toBe(0);
    expect(await db().step.count({ where: { sessionId: otherUsersSession } })).toBe(0);
  });

  it("answers a slash command (no run) with the handler's short stream", async () => {
    const { cookie } = await createUser();
    const answer = await send({ cookie, body: JSON.stringify({ sessionId: await newSession(cookie), text: "/steps" }) });
    expect(answer.status).toBe(200);
    const { chunks, text } = await readUiStream(asResponse(answer));
    expect(text).toBe("No steps yet.");
    expect(chunks.at(-1)?.type).toBe("finish");
    expect(answer.text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it("keeps the run going when the browser leaves mid-stream", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ text: "A slow answer that finishes anyway.", chunks: 6, delayMs: 300, chunkDelayMs: 100 }]);
    const answer = await send({
      cookie,
      body: JSON.stringify({ sessionId, text: "hello" }),
      // Leave as soon as the stream has started, before the model's first token.
      onResponse: (request, response) => response.once("data", () => request.destroy()),
    });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain("finishes anyway");
    await waitForRun(sessionId);
    const steps = await db().step.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    expect(steps.map((step) => [step.type, step.status])).toEqual([
      ["USER_INPUT", "COMPLETED"],
      ["MODEL_CALL", "COMPLETED"],
    ]);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("SUCCESS");
  });

  it("answers a Node route that fails with the wrapper's generic 500, not a hung or dropped connection", async () => {
    const answer = await send({ path: "/api/broken", body: "{}" });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text).error.code).toBe("internal");
    expect(answer.text).not.toContain("broken on purpose");
    expect(answer.headers["content-security-policy"]).toBe(API_CONTENT_SECURITY_POLICY);
    expect(reachedNext).toEqual([]);
  });

  it("leaves every other request to Next.js: other methods, other paths", async () => {
    expect((await send({ method: "GET" })).text).toBe("next");
    expect((await send({ path: "/api/chat/extra", body: "{}" })).text).toBe("next");
    expect((await send({ path: "/api/chats", body: "{}" })).text).toBe("next");
    expect(reachedNext).toEqual(["GET /api/chat", "POST /api/chat/extra", "POST /api/chats"]);
    // A query string does not make it another route.
    expect((await send({ path: "/api/chat?x=1", body: "{}" })).status).toBe(401);
  });
});
