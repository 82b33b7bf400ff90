import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { isAppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { clientIp } from "./client-ip";
import { sessionMaxAgeSeconds } from "./session-token";
import { verifyCredentials } from "./sign-in";

const log = createLogger("auth");

/**
 * next-auth handles the sign-in form post, its CSRF token and the session cookie. The JWT carries
 * only the user id (`sub`) and the session version (`sv`); everything else is read fresh from the
 * database on each request (lib/auth/authenticate.ts).
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
            // next-auth passes an Error's message back to the sign-in form as `error`.
            if (isAppError(error)) throw new Error(error.message);
            log.error("sign-in failed unexpectedly", { error });
            throw new Error("Sign-in is unavailable right now. Try again shortly.");
          }
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sv = (user as { sessionVersion?: number }).sessionVersion;
        }
        return { sub: token.sub, sv: token.sv };
      },
      session({ session, token }) {
        return { ...session, user: { id: token.sub } } as typeof session;
      },
    },
    logger: {
      error: (code, metadata) => log.error(`next-auth ${code}`, { metadata }),
      warn: (code) => log.warn(`next-auth ${code}`),
      debug: () => {},
    },
  };
}
