import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { isAppError, type AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import type { TSignInErrorCode } from "@/lib/wire/sign-in";
import { clientIp } from "./client-ip";
import { revokeSession } from "./revoked-sessions";
import { fromSessionJwt, newSessionClaims, sessionMaxAgeSeconds, toSessionJwt } from "./session-token";
import { verifyCredentials } from "./sign-in";

const log = createLogger("auth");

/**
 * Where next-auth may send the browser after sign-in or sign-out: only to our own origin, and never
 * an exception. next-auth's default callback runs `new URL(url)` on whatever `callbackUrl` the
 * request (or its callback-url cookie) carried, so a malformed one was a 500.
 */
export function safeRedirect({ url, baseUrl }: { url: unknown; baseUrl: string }): string {
  if (typeof url !== "string") return baseUrl;
  try {
    const base = new URL(baseUrl);
    // Relative URLs resolve against our origin; `//host` and `/\host` resolve to another host and fail the check.
    const target = new URL(url, base);
    if (target.origin === base.origin) return target.href;
  } catch {
    // Not a URL at all: fall through to the safe default.
  }
  return baseUrl;
}

/** The code (never the message) a failed sign-in hands back; see lib/wire/sign-in.ts. */
export function signInErrorCode(error: AppError): TSignInErrorCode {
  switch (error.code) {
    case "unauthorized":
      return "wrong_credentials";
    case "forbidden":
      return "account_disabled";
    case "bad_request":
      return "invalid_characters";
    case "rate_limited": {
      const seconds = Number(error.headers["retry-after"]);
      return `rate_limited_${Number.isSafeInteger(seconds) && seconds > 0 ? seconds : 60}`;
    }
    default:
      return "unavailable";
  }
}

/**
 * next-auth handles the sign-in form post, its CSRF token and the session cookie. The JWT carries
 * only the user id, the session version, a session id and the session's fixed expiry
 * (lib/auth/session-token.ts); everything else is read fresh from the database on each request
 * (lib/auth/authenticate.ts).
 */
export function nextAuthOptions(): NextAuthOptions {
  return {
    session: { strategy: "jwt", maxAge: sessionMaxAgeSeconds() },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        async authorize(credentials, request) {
          try {
            const user = await verifyCredentials({
              email: credentials?.email ?? "",
              password: credentials?.password ?? "",
              ip: clientIp(request?.headers ?? {}),
            });
            return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
          } catch (error) {
            // next-auth passes an Error's message back to the sign-in form as `error`, in the URL
            // when the form was posted without script: a code the page maps to its own sentence.
            if (isAppError(error)) throw new Error(signInErrorCode(error));
            log.error("sign-in failed unexpectedly", { error });
            throw new Error("unavailable" satisfies TSignInErrorCode);
          }
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        // At sign-in `user` is what authorize returned: start a new session. On a refresh, keep
        // the claims as they are (the expiry in particular); anything else next-auth adds is dropped.
        if (user) return toSessionJwt(newSessionClaims({ id: user.id, sessionVersion: (user as unknown as { sessionVersion: number }).sessionVersion }));
        const claims = fromSessionJwt(token);
        return claims ? toSessionJwt(claims) : { sub: token.sub };
      },
      session({ session, token }) {
        return { ...session, user: { id: token.sub } } as typeof session;
      },
      redirect: safeRedirect,
    },
    events: {
      async signOut({ token }) {
        const claims = fromSessionJwt(token);
        if (!claims) return;
        try {
          await revokeSession(claims);
        } catch (error) {
          // The browser's cookie is deleted anyway; a copy of it stays valid, which must be seen.
          log.error("could not revoke the session on sign-out", { error });
        }
      },
    },
    logger: {
      error: (code, metadata) => log.error(`next-auth ${code}`, { metadata }),
      warn: (code) => log.warn(`next-auth ${code}`),
      debug: () => {},
    },
  };
}
