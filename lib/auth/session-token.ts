import { randomBytes } from "node:crypto";
import { decode, encode, type JWT } from "next-auth/jwt";
import { authSecret, authSecrets, publicOrigin } from "@/lib/config/environment";
import { getBehaviourConfig } from "@/lib/config/behaviour";

/**
 * The browser session is next-auth's encrypted JWT cookie. It carries the user id, the user's
 * `sessionVersion` at sign-in, a random session id and the session's absolute expiry:
 * - every request compares the version with the database, which is what makes "sign out
 *   everywhere", password changes and disabling a user take effect at once;
 * - "Sign out" records the session id in `revoked_sessions`, so a copy of the cookie stops working
 *   too (next-auth alone only deletes the cookie from the browser that signed out);
 * - the expiry is fixed at sign-in (next-auth re-issues the JWT with a later `exp` whenever it
 *   refreshes it), so a session never outlives `auth.sessionMaxAgeDays` and a revocation row can
 *   be deleted once that moment has passed.
 */
export type TSessionClaims = { userId: string; sessionVersion: number; sessionId: string; expiresAt: Date };

/** The claims as stored in the JWT. */
export type TSessionJwt = { sub: string; sv: number; sid: string; sxp: number };

export function newSessionClaims(user: { id: string; sessionVersion: number }): TSessionClaims {
  return {
    userId: user.id,
    sessionVersion: user.sessionVersion,
    sessionId: randomBytes(18).toString("base64url"),
    expiresAt: new Date((Math.floor(Date.now() / 1000) + sessionMaxAgeSeconds()) * 1000),
  };
}

export function toSessionJwt(claims: TSessionClaims): TSessionJwt {
  return { sub: claims.userId, sv: claims.sessionVersion, sid: claims.sessionId, sxp: Math.floor(claims.expiresAt.getTime() / 1000) };
}

/** Reads our claims from a decoded JWT; undefined when any is missing (e.g. a cookie from before sessions had ids). */
export function fromSessionJwt(claims: Record<string, unknown> | null | undefined): TSessionClaims | undefined {
  if (!claims) return undefined;
  const { sub, sv, sid, sxp } = claims;
  if (typeof sub !== "string" || typeof sv !== "number" || typeof sid !== "string" || typeof sxp !== "number") return undefined;
  if (!/^[\w-]{16,64}$/.test(sid)) return undefined;
  return { userId: sub, sessionVersion: sv, sessionId: sid, expiresAt: new Date(sxp * 1000) };
}

export function sessionCookieName(): string {
  const secure = publicOrigin()?.startsWith("https://") ?? false;
  return secure ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

export function sessionMaxAgeSeconds(): number {
  return getBehaviourConfig().auth.sessionMaxAgeDays * 24 * 60 * 60;
}

/** Parses a Cookie header into name → value (values percent-decoded where they are encoded). */
export function parseCookieHeader(cookieHeader: string | null | undefined): Record<string, string> {
  // A Map, not an object: cookie names such as `__proto__` or `toString` are just names here.
  const cookies = new Map<string, string>();
  if (!cookieHeader) return {};
  for (const part of cookieHeader.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    if (!name || cookies.has(name)) continue;
    let value = part.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // Not percent-encoded after all: keep it as sent.
    }
    cookies.set(name, value);
  }
  return Object.fromEntries(cookies);
}

/** The session token from a cookie lookup, joining next-auth's chunked cookies (`name.0`, `name.1`, …). */
export function sessionTokenFromCookies(get: (name: string) => string | undefined): string | undefined {
  const name = sessionCookieName();
  const whole = get(name);
  if (whole !== undefined) return whole;
  const chunks: string[] = [];
  for (let chunk = get(`${name}.0`); chunk !== undefined; chunk = get(`${name}.${chunks.length}`)) chunks.push(chunk);
  return chunks.length ? chunks.join("") : undefined;
}

/** Reads the session token from a cookie header. */
export function readSessionCookie(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const cookies = parseCookieHeader(cookieHeader);
  return sessionTokenFromCookies((name) => (Object.hasOwn(cookies, name) ? cookies[name] : undefined));
}

/**
 * next-auth's JWT decode with the current secret, then (while NEXTAUTH_SECRET is rotated) the
 * previous one, so a rotation signs nobody out; next-auth re-issues the cookie under the current one.
 */
export async function decodeWithRotation(params: Parameters<typeof decode>[0]): Promise<JWT | null> {
  const secrets = authSecrets();
  for (const [index, secret] of secrets.entries()) {
    try {
      return await decode({ ...params, secret });
    } catch (error) {
      if (index === secrets.length - 1) throw error;
    }
  }
  return null;
}

export async function decodeSessionToken(token: string): Promise<TSessionClaims | undefined> {
  let decoded: JWT | null;
  try {
    decoded = await decodeWithRotation({ token, secret: authSecret() });
  } catch {
    return undefined;
  }
  const claims = fromSessionJwt(decoded);
  if (!claims || claims.expiresAt.getTime() <= Date.now()) return undefined;
  return claims;
}

/** Makes a session cookie value directly (tests and tooling; the app signs in through next-auth). */
export async function encodeSessionToken(user: { userId: string; sessionVersion: number }, claims: Partial<TSessionClaims> = {}): Promise<string> {
  const session = { ...newSessionClaims({ id: user.userId, sessionVersion: user.sessionVersion }), ...claims };
  return encode({ token: toSessionJwt(session), secret: authSecret(), maxAge: sessionMaxAgeSeconds() });
}
