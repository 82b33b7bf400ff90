import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { API_RESPONSE_HEADERS } from "./security-headers";

/**
 * A Node request as the web Request a route handler takes, and a web Response written back to
 * Node, for the routes a production server answers before Next.js (server-hook.ts). They do what
 * Next.js does for a route handler: forwarding headers filled in only when missing (its
 * base-server), the IncomingMessage itself as the streaming body (its NextRequestAdapter), and the
 * headers next.config.ts adds to every API answer.
 */
export function webRequestFrom(incoming: IncomingMessage): Request {
  const encrypted = (incoming.socket as TLSSocket).encrypted === true;
  const host = incoming.headers.host ?? "localhost";
  incoming.headers["x-forwarded-host"] ??= host;
  incoming.headers["x-forwarded-proto"] ??= encrypted ? "https" : "http";
  if (incoming.socket.remoteAddress) incoming.headers["x-forwarded-for"] ??= incoming.socket.remoteAddress;
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
  return new Request(`${encrypted ? "https" : "http"}://${host}${incoming.url ?? "/"}`, {
    method: incoming.method,
    headers,
    ...(hasBody ? { body: incoming as unknown as BodyInit, duplex: "half" } : {}),
  } as RequestInit);
}

/** The status and headers of an answer, with the API security headers under them. */
export function nodeHeadersOf(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { ...API_RESPONSE_HEADERS };
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  return headers;
}

export async function sendWebResponse(outgoing: ServerResponse, response: Response): Promise<void> {
  outgoing.writeHead(response.status, nodeHeadersOf(response));
  if (!response.body) {
    outgoing.end();
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), outgoing);
  } catch {
    // The client left mid-answer, or the body failed: pipeline has closed both ends, and a status
    // already sent cannot be changed.
  }
}
