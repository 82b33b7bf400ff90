import { decode, encode, type JWT } from "next-auth/jwt";
import { authSecret, publicOrigin } from "@/lib/config/environment";
import { getBehaviourConfig } from "@/lib/config/behaviour";

/**
 * The browser session is next-auth's encrypted JWT cookie. It carries the user id and the user's
 * `sessionVersion` at sign-in; every request compares that with the database, which is what makes
 * "sign out everywhere", password changes and disabling a user take effect at once.
 */
export type TSessionClaims = { userId: string; sessionVersion: number };

export function sessionCookieName(): string {
  const secure = publicOrigin()?.startsWith("https://") ?? false;
  return secure ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

export function sessionMaxAgeSeconds(): number {
  return getBehaviourConfig().auth.sessionMaxAgeDays * 24 * 60 * 60;
}

/** Reads a cookie header, joining next-auth's chunked cookies (`name.0`, `name.1`, …). */
export function readSessionCookie(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const name = sessionCookieName();
  const cookies = new Map<string, string>();
  for (const part of cookieHeader.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    cookies.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  if (cookies.has(name)) return decodeURIComponent(cookies.get(name)!);
  const chunks: string[] = [];
  for (let index = 0; cookies.has(`${name}.${index}`); index++) chunks.push(cookies.get(`${name}.${index}`)!);
  return chunks.length ? decodeURIComponent(chunks.join("")) : undefined;
}

export async function decodeSessionToken(token: string): Promise<TSessionClaims | undefined> {
  let claims: JWT | null;
  try {
    claims = await decode({ token, secret: authSecret() });
  } catch {
    return undefined;
  }
  if (!claims || typeof claims.sub !== "string" || typeof claims.sv !== "number") return undefined;
  return { userId: claims.sub, sessionVersion: claims.sv };
}

/** Makes a session cookie value directly (tests and tooling; the app signs in through next-auth). */
export async function encodeSessionToken(claims: TSessionClaims): Promise<string> {
  return encode({ token: { sub: claims.userId, sv: claims.sessionVersion }, secret: authSecret(), maxAge: sessionMaxAgeSeconds() });
}
