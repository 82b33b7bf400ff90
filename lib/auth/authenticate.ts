import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { publicOrigin } from "@/lib/config/environment";
import { hashApiToken, looksLikeApiToken } from "./api-tokens";
import { lookUpAuth } from "./auth-cache";
import { fromTheRight, trustedProxyCount } from "./client-ip";
import { decodeSessionToken, readSessionCookie } from "./session-token";

/**
 * Who is calling: every route handler calls `requireUser`/`requireAdmin` itself, so nothing depends
 * on middleware having run (a forged `x-middleware-subrequest` header changes nothing here).
 * Accepts `Authorization: Bearer xclaw_…` or the session cookie.
 */
export type TAuthContext = { user: User; via: "session" | "api-token"; apiTokenId?: string };

const MUTATING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// Bearer checks run on every API call; writing lastUsedAt each time would turn reads into writes.
const LAST_USED_RESOLUTION_SECONDS = 60;

type TTokenUserRow = User & { apiTokenId: string };

/**
 * One statement, so one round trip on the hot path (every chat message): find the token, require
 * an active owner whose sessionVersion is still the one the token was made with, and touch
 * lastUsedAt at most once a minute in the same statement.
 */
async function userFromApiToken(token: string): Promise<TAuthContext | undefined> {
  if (!looksLikeApiToken(token)) return undefined;
  const tokenHash = hashApiToken(token);
  const found = await lookUpAuth(`token:${tokenHash}`, async () => {
    const rows = await db().$queryRaw<TTokenUserRow[]>`
    WITH "match" AS (
      SELECT t."id", t."userId", t."lastUsedAt"
      FROM "api_tokens" t JOIN "users" u ON u."id" = t."userId"
      WHERE t."tokenHash" = ${tokenHash} AND u."status" = 'ACTIVE' AND t."sessionVersion" = u."sessionVersion"
    ), "touched" AS (
      UPDATE "api_tokens" SET "lastUsedAt" = now(), "updatedAt" = now()
      WHERE "id" IN (SELECT "id" FROM "match" WHERE "lastUsedAt" IS NULL OR "lastUsedAt" < now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS}::int))
    )
    SELECT u.*, "match"."id" AS "apiTokenId" FROM "match" JOIN "users" u ON u."id" = "match"."userId"`;
    const row = rows[0];
    if (!row) return undefined;
    const { apiTokenId, ...user } = row;
    return { user, apiTokenId };
  });
  return found && { user: found.user, via: "api-token", apiTokenId: found.apiTokenId };
}

/**
 * Resolves the user behind a session cookie value, or undefined when it is stale or invalid. The
 * version check, the account status and the "signed out" check are all conditions of one query
 * (NOT EXISTS on revoked_sessions' primary key): one round trip, as before revocation existed.
 */
export async function userFromSessionToken(token: string | undefined): Promise<User | undefined> {
  if (!token) return undefined;
  // Decrypting the cookie costs more than the lookup; both are skipped for a cookie seen seconds ago.
  const found = await lookUpAuth(`cookie:${token}`, async () => {
    const claims = await decodeSessionToken(token);
    if (!claims) return undefined;
    const user = await db().user.findFirst({
      where: {
        id: claims.userId,
        status: "ACTIVE",
        sessionVersion: claims.sessionVersion,
        revokedSessions: { none: { sessionId: claims.sessionId } },
      },
    });
    return user ? { user } : undefined;
  });
  return found?.user;
}

/**
 * The origins our own pages have: the configured public URL, and the one this request was sent to.
 * The latter comes from the Host header, or from X-Forwarded-Host/-Proto only when proxies are
 * trusted (XCLAW_TRUSTED_PROXIES), read the same way as X-Forwarded-For: N-th entry from the right.
 */
function allowedOrigins(request: Request): Set<string> {
  const origins = new Set<string>();
  const configured = publicOrigin();
  if (configured) origins.add(configured);
  const url = new URL(request.url);
  const proxies = trustedProxyCount();
  const forwardedHost = proxies > 0 ? fromTheRight(request.headers.get("x-forwarded-host") ?? undefined, proxies) : undefined;
  const forwardedProtocol = proxies > 0 ? fromTheRight(request.headers.get("x-forwarded-proto") ?? undefined, proxies) : undefined;
  const host = forwardedHost ?? request.headers.get("host");
  if (host) {
    const protocol = forwardedProtocol === "https" || forwardedProtocol === "http" ? forwardedProtocol : url.protocol.replace(":", "");
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
