import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { stampPeerAddress } from "@/lib/auth/client-ip";
import { sendWebResponse, webRequestFrom } from "@/lib/http/node-exchange";
import { installServerHook } from "@/lib/http/server-hook";

/**
 * A real HTTP server in front of real route handlers, for behaviour that only exists on the wire:
 * client addresses (tests connect from 127.0.0.2, 127.0.0.3, … with `localAddress`), bodies that
 * arrive slowly or never, headers a client forges. Between the socket and the handler it does what
 * `next start` does and nothing more: the server hook from instrumentation.ts (peer address) runs on every
 * request, and the production server's own Node-to-web exchange (lib/http/node-exchange.ts: forwarding
 * headers filled in only when missing, the IncomingMessage as the streaming body) carries the rest.
 */
// `never` so that a handler typed for any params shape is accepted (parameters are contravariant).
type THandler = (request: Request, context: { params: Promise<never> }) => Promise<Response>;
export type TRoutes = Record<string, THandler | Partial<Record<string, THandler>>>;

function match(pattern: string, path: string): Record<string, string | string[]> | undefined {
  const patternParts = pattern.split("/").filter(Boolean);
  const pathParts = path.split("/").filter(Boolean);
  const params: Record<string, string | string[]> = {};
  for (let index = 0; index < patternParts.length; index++) {
    const part = patternParts[index]!;
    const catchAll = /^\[\.\.\.(\w+)\]$/.exec(part);
    if (catchAll) {
      params[catchAll[1]!] = pathParts.slice(index).map(decodeURIComponent);
      return params;
    }
    const dynamic = /^\[(\w+)\]$/.exec(part);
    if (index >= pathParts.length) return undefined;
    if (dynamic) params[dynamic[1]!] = decodeURIComponent(pathParts[index]!);
    else if (part !== pathParts[index]) return undefined;
  }
  return patternParts.length === pathParts.length ? params : undefined;
}

export async function serveRoutes(routes: TRoutes): Promise<{ port: number; close: () => Promise<void> }> {
  installServerHook({ prepare: stampPeerAddress });
  const server = http.createServer(async (incoming, outgoing) => {
    try {
      const request = webRequestFrom(incoming);
      const path = new URL(request.url).pathname;
      let found: { handler: THandler; params: Record<string, string | string[]> } | undefined;
      for (const [pattern, entry] of Object.entries(routes)) {
        const params = match(pattern, path);
        const handler = typeof entry === "function" ? entry : entry[incoming.method ?? "GET"];
        if (params && handler) found = { handler, params };
      }
      if (!found) {
        outgoing.writeHead(404).end();
        return;
      }
      await sendWebResponse(outgoing, await found.handler(request, { params: Promise.resolve(found.params) as Promise<never> }));
    } catch (error) {
      outgoing.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type TWireResponse = { status: number; headers: IncomingHttpHeaders; text: string; json: unknown };

/**
 * One request over a fresh TCP connection from the loopback address `from` (any of 127.0.0.0/8).
 * `body` may be a string or a Buffer; `sendBody: false` sends only the headers and never the body.
 */
export function send(
  port: number,
  options: { from: string; method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; sendBody?: boolean },
): Promise<TWireResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress: options.from,
        method: options.method ?? (options.body === undefined && options.sendBody !== false ? "GET" : "POST"),
        path: options.path,
        headers: { connection: "close", ...options.headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
          request.destroy();
        });
      },
    );
    // The server may answer and close before a large body has been sent: that is the point.
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    if (options.sendBody === false) request.flushHeaders();
    else request.end(options.body);
  });
}

/** Cookie header value from Set-Cookie response headers (names and values only). */
export function cookiesFrom(headers: IncomingHttpHeaders, previous = ""): string {
  const jar = new Map(previous.split("; ").filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
  for (const line of headers["set-cookie"] ?? []) {
    const pair = line.split(";")[0]!;
    const name = pair.slice(0, pair.indexOf("="));
    const value = pair.slice(pair.indexOf("=") + 1);
    if (value) jar.set(name, value);
    else jar.delete(name);
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/**
 * Signs in through next-auth's real endpoints, as the sign-in form does: fetch the CSRF token (and
 * its cookie), then post the credentials form with `json=true`. Returns next-auth's answer and the
 * cookies the browser would hold afterwards.
 */
export async function signInOverHttp(
  port: number,
  options: { from: string; email: string; password: string; headers?: Record<string, string>; callbackUrl?: string },
) {
  const csrf = await send(port, { from: options.from, path: "/api/auth/csrf" });
  const csrfToken = (csrf.json as { csrfToken: string }).csrfToken;
  let cookie = cookiesFrom(csrf.headers);
  const form = new URLSearchParams({ email: options.email, password: options.password, csrfToken, callbackUrl: options.callbackUrl ?? "/", json: "true" });
  const response = await send(port, {
    from: options.from,
    path: "/api/auth/callback/credentials",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...options.headers },
    body: form.toString(),
  });
  cookie = cookiesFrom(response.headers, cookie);
  const url = (response.json as { url?: string } | undefined)?.url;
  const error = url ? new URL(url).searchParams.get("error") : null;
  return { response, url, error, cookie, csrfToken };
}
