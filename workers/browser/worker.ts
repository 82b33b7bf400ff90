import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import { z } from "zod";
import { ZBrowserActRequest, ZBrowserCloseRequest } from "@/lib/browser/protocol";
import { UrlGuard } from "@/lib/net/url-guard";
import { createLogger, type TLogger } from "@/lib/observability/logger";
import { BrowserPool, WorkerError } from "./browser-pool";
import { CHROMIUM_ARGS } from "../../lib/browser/chromium";

/**
 * The browser worker: the pool behind a small HTTP API (lib/browser/protocol.ts) on loopback.
 * Every request must carry the shared secret; the app is its only client.
 */
export type TBrowserWorkerOptions = {
  secret: string;
  executablePath: string;
  host?: string;
  port?: number;
  allowedPrivateHosts: readonly string[];
  maxContexts: number;
  idleMs: number;
  navigationTimeoutMs: number;
  networkIdleMs: number;
  contentPageCharacters: number;
  log?: TLogger;
  /** DNS for the URL guard (tests resolve made-up names); the system resolver by default. */
  lookup?: (host: string) => Promise<string[]>;
};

export type TBrowserWorker = { url: string; port: number; pool: BrowserPool; close: (graceMs?: number) => Promise<void> };

const MAX_BODY_BYTES = 256 * 1024;

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function send(response: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  response.end(text);
}

function sendError(response: http.ServerResponse, status: number, code: string, message: string) {
  send(response, status, { error: { code, message } });
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new WorkerError(413, "payload_too_large", "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new WorkerError(400, "bad_request", "The request body is not JSON.");
  }
}

export async function startBrowserWorker(options: TBrowserWorkerOptions): Promise<TBrowserWorker> {
  if (options.secret.length < 16) throw new Error("the browser worker secret must have at least 16 characters");
  const log = options.log ?? createLogger("browser-worker");
  const guard = new UrlGuard({ allowedPrivateHosts: options.allowedPrivateHosts, lookup: options.lookup, setting: "browser.allowedPrivateHosts" });
  const pool = new BrowserPool({
    executablePath: options.executablePath,
    args: CHROMIUM_ARGS,
    maxContexts: options.maxContexts,
    idleMs: options.idleMs,
    session: { guard, navigationTimeoutMs: options.navigationTimeoutMs, networkIdleMs: options.networkIdleMs, contentPageCharacters: options.contentPageCharacters },
    log,
  });
  await pool.start();
  const expected = digest(options.secret);

  const server = http.createServer(async (request, response) => {
    const started = performance.now();
    try {
      const header = request.headers.authorization ?? "";
      const given = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!given || !timingSafeEqual(digest(given), expected)) throw new WorkerError(401, "unauthorized", "Missing or wrong browser worker secret.");
      const path = new URL(request.url ?? "/", "http://worker").pathname;
      if (request.method === "GET" && path === "/v1/health") return send(response, 200, pool.health());
      if (request.method === "POST" && path === "/v1/act") {
        const body = ZBrowserActRequest.parse(await readBody(request));
        const observation = await pool.act(body.userId, body.sessionId, body.action, body.egress);
        log.debug("browser action", { action: body.action.type, sessionId: body.sessionId, ms: Math.round(performance.now() - started), isError: observation.isError });
        return send(response, 200, observation);
      }
      if (request.method === "POST" && path === "/v1/close") {
        const body = ZBrowserCloseRequest.parse(await readBody(request));
        return send(response, 200, { closed: await pool.closeSession(body.userId, body.sessionId) });
      }
      throw new WorkerError(404, "not_found", `No such endpoint: ${request.method} ${path}`);
    } catch (error) {
      if (error instanceof WorkerError) return sendError(response, error.status, error.code, error.message);
      if (error instanceof z.ZodError) return sendError(response, 400, "bad_request", z.prettifyError(error));
      log.error("browser action failed", { error });
      return sendError(response, 500, "internal", "The browser worker failed; see its log.");
    }
  });
  // Navigations can take a while; the client has its own timeout.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
    });
  } catch (error) {
    await pool.shutdown(0);
    throw error;
  }
  const address = server.address() as net.AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    pool,
    close: async (graceMs = 10_000) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests in flight finish (up to the grace period) before their contexts close.
      await pool.shutdown(graceMs);
      server.closeIdleConnections();
      const stragglers = setTimeout(() => sockets.forEach((socket) => socket.destroy()), 1_000);
      await closed;
      clearTimeout(stragglers);
    },
  };
}
