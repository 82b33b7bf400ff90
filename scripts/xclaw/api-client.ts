import { AppError, STATUS_BY_CODE, type TErrorCode } from "../../lib/errors";
import type { TLogin } from "./login-store";

/**
 * The public HTTP API as the terminal client uses it: every request carries
 * `Authorization: Bearer <token>` (lib/auth/authenticate.ts), and every failure becomes an
 * AppError whose message says what to do — the server's own `{error: {code, message}}` where it
 * sent one, our words where it could not (unreachable, not an xclaw server, a refused token).
 */
export type TApiClient = {
  url: string;
  /** A page of the web app, e.g. the chat a run waits in. */
  link(pathname: string): string;
  getJson<T>(pathname: string): Promise<T>;
  postJson<T>(pathname: string, body?: unknown): Promise<T>;
  /** A POST whose answer is the chat's UI message stream (a new message, an approval decision). */
  postStream(pathname: string, body: unknown, signal?: AbortSignal): Promise<Response>;
  /** A GET that streams, or undefined on 204 (GET /api/chat/:id/stream when nothing runs). */
  getStream(pathname: string, signal?: AbortSignal): Promise<Response | undefined>;
};

// JSON calls answer at once; a stream's response headers come as soon as the run is claimed.
const REQUEST_TIMEOUT_MS = 30_000;

function isErrorCode(value: unknown): value is TErrorCode {
  return typeof value === "string" && value in STATUS_BY_CODE;
}

function codeForStatus(status: number): TErrorCode {
  const known = Object.entries(STATUS_BY_CODE).find(([, code]) => code === status);
  return known ? (known[0] as TErrorCode) : status >= 500 ? "internal" : "bad_request";
}

async function errorFromResponse(response: Response, url: string, pathname: string): Promise<AppError> {
  const text = await response.text().catch(() => "");
  let code: TErrorCode | undefined;
  let message: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (isErrorCode(body.error?.code)) code = body.error.code;
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // Not one of our JSON errors (a proxy's page, another program on that port): said below.
  }
  if (response.status === 401) {
    return new AppError("unauthorized", `${url} refused the token: it is wrong, was revoked, or was ended by a password change or "sign out everywhere". Create one on Settings → API tokens and log in again: xclaw login ${url}`);
  }
  if (response.status >= 300 && response.status < 400) {
    // Not followed: the token would go wherever the redirect points.
    return new AppError("bad_request", `${url} redirects ${pathname} to ${response.headers.get("location") ?? "another address"}: log in with the address the server really answers on.`);
  }
  if (!message) {
    if (response.status === 404) return new AppError("not_found", `${url}${pathname} does not exist: is ${url} an xclaw server?`);
    return new AppError(codeForStatus(response.status), `${url} answered ${response.status} ${response.statusText} to ${pathname}.`);
  }
  return new AppError(code ?? codeForStatus(response.status), message);
}

function unreachable(url: string, error: unknown): AppError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === "TimeoutError") return new AppError("unavailable", `${url} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s.`);
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  return new AppError("unavailable", `Cannot reach ${url} (${why}). Check the address and that the server is running.`, { cause: error });
}

export function createApiClient(login: TLogin): TApiClient {
  const { url, token } = login;
  async function send(pathname: string, init: { method: string; body?: unknown; accept: string; signal?: AbortSignal }): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: init.accept };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(`${url}${pathname}`, {
        method: init.method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: init.signal,
        redirect: "manual",
      });
    } catch (error) {
      if (init.signal?.aborted && (error as Error).name === "AbortError") throw error;
      throw unreachable(url, error);
    }
    if (!response.ok) throw await errorFromResponse(response, url, pathname);
    return response;
  }
  async function json<T>(pathname: string, method: string, body?: unknown): Promise<T> {
    const response = await send(pathname, { method, body, accept: "application/json", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AppError("internal", `${url}${pathname} did not answer with JSON: is ${url} an xclaw server?`);
    }
  }
  return {
    url,
    link: (pathname) => `${url}${pathname}`,
    getJson: (pathname) => json(pathname, "GET"),
    postJson: (pathname, body) => json(pathname, "POST", body),
    postStream: (pathname, body, signal) => send(pathname, { method: "POST", body, accept: "text/event-stream", signal }),
    async getStream(pathname, signal) {
      const response = await send(pathname, { method: "GET", accept: "text/event-stream", signal });
      return response.status === 204 ? undefined : response;
    },
  };
}
