import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { publicOrigin } from "@/lib/config/environment";
import { hashApiToken, looksLikeApiToken } from "./api-tokens";
import { decodeSessionToken, readSessionCookie } from "./session-token";

/**
 * Who is calling: every route handler calls `requireUser`/`requireAdmin` itself, so nothing depends
 * on middleware having run (a forged `x-middleware-subrequest` header changes nothing here).
 * Accepts `Authorization: Bearer xclaw_…` or the session cookie.
 */
export type TAuthContext = { user: User; via: "session" | "api-token"; apiTokenId?: string };

const MUTATING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// Bearer checks run on every API call; writing lastUsedAt each time would turn reads into writes.
const LAST_USED_RESOLUTION_MS = 60_000;

async function userFromApiToken(token: string): Promise<TAuthContext | undefined> {
  if (!looksLikeApiToken(token)) return undefined;
  const row = await db().apiToken.findUnique({ where: { tokenHash: hashApiToken(token) }, include: { user: true } });
  if (!row || row.user.status !== "ACTIVE") return undefined;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db().apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  return { user: row.user, via: "api-token", apiTokenId: row.id };
}

/** Resolves the user behind a session cookie value, or undefined when it is stale or invalid. */
export async function userFromSessionToken(token: string | undefined): Promise<User | undefined> {
  if (!token) return undefined;
  const claims = await decodeSessionToken(token);
  if (!claims) return undefined;
  const user = await db().user.findUnique({ where: { id: claims.userId } });
  if (!user || user.status !== "ACTIVE" || user.sessionVersion !== claims.sessionVersion) return undefined;
  return user;
}

function allowedOrigins(request: Request): Set<string> {
  const origins = new Set<string>();
  const configured = publicOrigin();
  if (configured) origins.add(configured);
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  if (host) {
    const protocol = request.headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "");
    origins.add(`${protocol}://${host}`);
  } else {
    origins.add(url.origin);
  }
  return origins;
}

/**
 * Cookies ride along on cross-site requests, so a mutating request authenticated by cookie must
 * come from our own pages. Browsers always send Origin (or at least Sec-Fetch-Site) on such
 * requests; non-browser clients use bearer tokens.
 */
export function assertSameOrigin(request: Request): void {
  if (!MUTATING_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  if (origin) {
    if (!allowedOrigins(request).has(origin)) {
      throw new AppError("forbidden", "Cross-origin request refused.");
    }
    return;
  }
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite && fetchSite !== "same-origin" && fetchSite !== "none") {
    throw new AppError("forbidden", "Cross-origin request refused.");
  }
}

export async function authenticate(request: Request): Promise<TAuthContext | undefined> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    // A present but wrong Authorization header is a failed login, never a fall-back to cookies.
    return match ? userFromApiToken(match[1]!) : undefined;
  }
  const user = await userFromSessionToken(readSessionCookie(request.headers.get("cookie")));
  if (!user) return undefined;
  assertSameOrigin(request);
  return { user, via: "session" };
}

export async function requireUser(request: Request): Promise<TAuthContext> {
  const auth = await authenticate(request);
  if (!auth) throw new AppError("unauthorized", "Sign in, or send an API token as `Authorization: Bearer <token>`.");
  return auth;
}

export async function requireAdmin(request: Request): Promise<TAuthContext> {
  const auth = await requireUser(request);
  if (auth.user.role !== "ADMIN") throw new AppError("forbidden", "Only admins can do this.");
  return auth;
}
