import http from "node:http";
import net from "node:net";
import type { UrlGuard } from "@/lib/net/url-guard";

/**
 * Every connection a browser context makes goes through its own instance of this proxy
 * (Playwright forces loopback through it too). The proxy resolves the host itself, refuses
 * private, loopback, link-local and metadata addresses unless allow-listed, and connects to the
 * address it checked. That covers what request interception cannot see: redirects (Playwright
 * routes only the first request of a chain), WebSockets, and DNS answers that change between the
 * check and the connection. Plain HTTP is forwarded; HTTPS and WebSockets are tunnelled (CONNECT).
 */
export type TEgressProxy = { url: string; close: () => Promise<void> };

export const BLOCKED_HEADER = "x-xclaw-blocked";

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade"]);

function blockedPage(target: string, reason: string): string {
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<!doctype html><title>Blocked</title><h1>Blocked by xclaw</h1><p>${escape(target)} was not loaded: ${escape(reason)}.</p>`;
}

function splitHostPort(authority: string): { host: string; port: number } | undefined {
  const match = /^\[([^\]]+)\]:(\d{1,5})$/.exec(authority) ?? /^([^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: match[1]!, port } : undefined;
}

export async function startEgressProxy(options: { guard: UrlGuard; onBlocked: (target: string, reason: string) => void; idleTimeoutMs?: number }): Promise<TEgressProxy> {
  const { guard, onBlocked } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  const sockets = new Set<net.Socket>();

  const server = http.createServer(async (request, response) => {
    let target: URL;
    try {
      target = new URL(request.url ?? "");
    } catch {
      response.writeHead(400).end("absolute URL expected");
      return;
    }
    if (target.protocol !== "http:") {
      response.writeHead(400).end("only http is forwarded; use CONNECT for https");
      return;
    }
    const port = target.port ? Number(target.port) : 80;
    const verdict = await guard.resolve(target.hostname, port);
    if (!verdict.ok && verdict.unresolved) {
      response.writeHead(502, { "content-type": "text/plain" }).end(verdict.reason);
      return;
    }
    if (!verdict.ok) {
      onBlocked(target.href, verdict.reason);
      response.writeHead(403, { "content-type": "text/html; charset=utf-8", [BLOCKED_HEADER]: encodeURIComponent(verdict.reason) }).end(blockedPage(target.href, verdict.reason));
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = http.request(
      { host: verdict.addresses[0], port, method: request.method, path: target.pathname + target.search, headers, setHost: false, agent: false },
      (answer) => {
        const answerHeaders: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) answerHeaders[name] = value;
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
        answer.pipe(response);
      },
    );
    upstream.setTimeout(idleTimeoutMs, () => upstream.destroy(new Error("upstream timed out")));
    upstream.on("error", () => {
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" }).end("upstream connection failed");
      else response.destroy();
    });
    request.pipe(upstream);
  });

  server.on("connect", async (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    const authority = splitHostPort(request.url ?? "");
    if (!authority) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const verdict = await guard.resolve(authority.host, authority.port);
    if (!verdict.ok && verdict.unresolved) {
      client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (!verdict.ok) {
      onBlocked(`${authority.host}:${authority.port}`, verdict.reason);
      client.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: ${encodeURIComponent(verdict.reason)}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect({ host: verdict.addresses[0], port: authority.port });
    let connected = false;
    upstream.setTimeout(idleTimeoutMs, () => upstream.destroy());
    upstream.on("connect", () => {
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => {
      if (!connected && client.writable) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      else client.destroy();
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });

  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
