import { randomBytes } from "node:crypto";
import { createApiToken } from "@/lib/auth/api-tokens";
import { encodeSessionToken, sessionCookieName } from "@/lib/auth/session-token";
import { db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

/**
 * Calls real route handlers with real Request objects, as Next.js does, against the test file's
 * own database. Only the HTTP server is skipped; e2e tests cover it.
 */
export const ORIGIN = "http://localhost:3000";

// `never` so that a handler typed for any params shape is accepted (parameters are contravariant).
type THandler = (request: Request, context: { params: Promise<never> }) => Promise<Response>;

export type TCallOptions = {
  method?: string;
  body?: unknown;
  rawBody?: string;
  bearer?: string;
  cookie?: string;
  origin?: string | null;
  headers?: Record<string, string>;
  params?: Record<string, string>;
};

export async function call(handler: THandler, path: string, options: TCallOptions = {}) {
  const method = options.method ?? (options.body === undefined && options.rawBody === undefined ? "GET" : "POST");
  const headers = new Headers({ host: "localhost:3000", ...options.headers });
  if (options.body !== undefined || options.rawBody !== undefined) headers.set("content-type", "application/json");
  if (options.bearer) headers.set("authorization", `Bearer ${options.bearer}`);
  if (options.cookie) headers.set("cookie", options.cookie);
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  if (origin && method !== "GET") headers.set("origin", origin);
  const request = new Request(`${ORIGIN}${path}`, {
    method,
    headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) as Promise<never> });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, headers: response.headers, json: json as any };
}

export const STRONG_PASSWORD = "correct-horse-42";

/** A user straight in the database, with a valid session cookie and an API token. */
export async function createUser(options: { email?: string; role?: "USER" | "ADMIN"; status?: "ACTIVE" | "DISABLED"; password?: string } = {}) {
  const email = options.email ?? `user-${randomBytes(4).toString("hex")}@example.com`;
  const user = await db().user.create({
    data: {
      email,
      passwordHash: await hashPassword(options.password ?? STRONG_PASSWORD),
      role: options.role ?? "USER",
      status: options.status ?? "ACTIVE",
    },
  });
  const cookie = `${sessionCookieName()}=${await encodeSessionToken({ userId: user.id, sessionVersion: user.sessionVersion })}`;
  const { token } = await createApiToken({ userId: user.id, name: "test" });
  return { user, cookie, token };
}
