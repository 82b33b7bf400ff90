import NextAuth from "next-auth";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { FORBIDDEN_CHARACTER_REASON, hasForbiddenCharacter, parseMediaType, readBodyText } from "@/lib/http/request-body";
import { publicOrigin } from "@/lib/config/environment";
import { nextAuthOptions, safeRedirect } from "./next-auth-options";
import { parseCookieHeader } from "./session-token";

/**
 * Serves /api/auth/* through next-auth, with our request rules in front of it.
 *
 * next-auth's App Router entry reads the body itself (no size limit), and the request's headers
 * and cookies through `next/headers`. We hand it the request the way its Node-style entry takes
 * one instead (`NextAuth(req, res, options)`): the body read by `readBodyText` with the same cap as
 * every JSON route (413 beyond it, enforced while reading), form fields and query parameters free
 * of NUL characters, callback URLs that are on our origin (next-auth answers 500 to malformed
 * ones), and headers that include the peer-address stamp for the sign-in rate limit.
 * The response object below implements the handful of methods that entry uses.
 */
type TFields = Record<string, string>;

function assertCleanFields(fields: TFields, where: string): void {
  for (const [name, value] of Object.entries(fields)) {
    if (hasForbiddenCharacter(name)) throw new AppError("bad_request", `A ${where} name ${FORBIDDEN_CHARACTER_REASON}`);
    if (hasForbiddenCharacter(value)) throw new AppError("bad_request", `${name} ${FORBIDDEN_CHARACTER_REASON}`);
  }
}

async function readForm(request: Request): Promise<TFields | undefined> {
  if (request.method !== "POST") return undefined;
  const media = parseMediaType(request.headers.get("content-type"));
  // next-auth's own client posts forms; nothing else is needed, so nothing else is parsed.
  if (media?.type !== "application/x-www-form-urlencoded") {
    throw new AppError("unsupported_media_type", "Send the form as `application/x-www-form-urlencoded`.");
  }
  const text = await readBodyText(request, getBehaviourConfig().http.maxJsonBytes);
  return Object.fromEntries(new URLSearchParams(text));
}

type TCollected = { status: number; headers: Headers; body: string | null };

function responseCollector() {
  const collected: TCollected = { status: 200, headers: new Headers(), body: null };
  const response = {
    status(code: number) {
      collected.status = code;
      return response;
    },
    setHeader(name: string, value: string | string[]) {
      collected.headers.delete(name);
      for (const item of Array.isArray(value) ? value : [value]) collected.headers.append(name, String(item));
      return response;
    },
    getHeader(name: string): string | string[] | undefined {
      if (name.toLowerCase() === "set-cookie") {
        const cookies = collected.headers.getSetCookie();
        return cookies.length ? cookies : undefined;
      }
      return collected.headers.get(name) ?? undefined;
    },
    json(value: unknown) {
      collected.headers.set("content-type", "application/json");
      collected.body = JSON.stringify(value);
      return response;
    },
    send(value: unknown) {
      if (typeof value === "string") {
        collected.body = value;
      } else if (value !== undefined && value !== null) {
        if (!collected.headers.has("content-type")) collected.headers.set("content-type", "application/json");
        collected.body = JSON.stringify(value);
      }
      return response;
    },
    end() {
      return response;
    },
  };
  return { response, collected };
}

const CALLBACK_URL_COOKIES = ["next-auth.callback-url", "__Secure-next-auth.callback-url"];

/**
 * next-auth answers 500 ("server configuration") to a `callbackUrl` parameter or callback-url
 * cookie that is not a URL. Every place a callback URL can come from is replaced by a safe one
 * first: the same URL when it is on our origin, else the start page.
 */
function sanitizeCallbackUrls(baseUrl: string, ...sources: (TFields | undefined)[]): void {
  for (const source of sources) {
    if (!source) continue;
    for (const name of ["callbackUrl", ...CALLBACK_URL_COOKIES]) {
      if (Object.hasOwn(source, name)) source[name] = safeRedirect({ url: source[name], baseUrl });
    }
  }
}

export async function handleNextAuth(request: Request, segments: string[]): Promise<Response> {
  const url = new URL(request.url);
  // The credentials provider has no GET callback; next-auth would answer that with a 500.
  if (segments[0] === "callback" && segments[1] === "credentials" && request.method !== "POST") {
    throw new AppError("method_not_allowed", "Sign in by posting the sign-in form.", { headers: { allow: "POST" } });
  }
  const query: TFields = Object.fromEntries(url.searchParams);
  assertCleanFields(query, "query parameter");
  const body = await readForm(request);
  if (body) assertCleanFields(body, "form field");
  const cookies = parseCookieHeader(request.headers.get("cookie"));
  sanitizeCallbackUrls(publicOrigin() ?? url.origin, query, body, cookies);
  const { response, collected } = responseCollector();
  await NextAuth(
    {
      method: request.method,
      query: { ...query, nextauth: segments },
      body,
      cookies,
      headers: Object.fromEntries(request.headers),
    } as never,
    response as never,
    nextAuthOptions(),
  );
  return new Response(collected.status === 204 || collected.status === 304 ? null : collected.body, {
    status: collected.status,
    headers: collected.headers,
  });
}
