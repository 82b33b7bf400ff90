import { getBehaviourConfig } from "@/lib/config/behaviour";
import { isAppError } from "@/lib/errors";
import { guardedFetch } from "@/lib/net/guarded-fetch";

/**
 * One JSON call to a chat platform's API (an access token, a reply), through the SSRF guard with
 * `channels.allowedPrivateHosts` as the exception list. Failures are PlatformErrors that say
 * whether trying again can help: rate limits (HTTP 429, or the platform's own code such as QQ's
 * 22009), server errors and unreachable hosts can; a refused request (a wrong secret, a message
 * the platform will not take) cannot. The channel jobs turn that into the jobs layer's retries.
 */
export class PlatformError extends Error {
  readonly retriable: boolean;
  /** How long the platform asked us to wait (Retry-After), when it said. */
  readonly retryAfterMs?: number;
  readonly status?: number;
  /** The platform's error code from the body, when it sent one. */
  readonly code?: number;
  /** A download over its size limit. */
  readonly tooLarge: boolean;

  constructor(message: string, options: { retriable: boolean; retryAfterMs?: number; status?: number; code?: number; tooLarge?: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "PlatformError";
    this.retriable = options.retriable;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.code = options.code;
    this.tooLarge = options.tooLarge ?? false;
  }
}

export type TPlatformRequest = {
  url: string;
  /** POST with `body` as JSON (the default), or GET without a body. */
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  /** What the call is, for messages: "QQ access token". */
  what: string;
  /** The platform's codes (in the body) that mean "too many requests, try later". */
  rateLimitCodes?: readonly number[];
  signal?: AbortSignal;
};

const MAX_RESPONSE_BYTES = 1024 * 1024;

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** The platform's error code and message from a JSON body (QQ: code/message, Feishu: code/msg). */
function errorOf(json: unknown): { code?: number; message?: string } {
  if (!json || typeof json !== "object") return {};
  const record = json as Record<string, unknown>;
  const code = typeof record.code === "number" ? record.code : typeof record.err_code === "number" ? record.err_code : undefined;
  const message = [record.message, record.msg].find((value): value is string => typeof value === "string");
  return { code, message };
}

export async function platformRequest(request: TPlatformRequest): Promise<unknown> {
  const settings = getBehaviourConfig().channels;
  let response: Response;
  try {
    const get = request.method === "GET";
    response = await guardedFetch(request.url, {
      method: get ? "GET" : "POST",
      headers: get ? request.headers : { "content-type": "application/json; charset=utf-8", ...request.headers },
      body: get ? undefined : JSON.stringify(request.body),
      redirect: "error",
      allowedPrivateHosts: settings.allowedPrivateHosts,
      timeoutMs: settings.requestTimeoutSeconds * 1000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      signal: request.signal,
    });
  } catch (error) {
    // Unreachable or too slow: worth another try. A refused address (SSRF guard) is not.
    const retriable = isAppError(error) ? error.code === "unavailable" : true;
    throw new PlatformError(`${request.what}: ${error instanceof Error ? error.message : String(error)}`, { retriable, cause: error });
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch (error) {
    if (isAppError(error) && error.code === "payload_too_large") throw new PlatformError(`${request.what}: ${error.message}`, { retriable: false, cause: error });
    json = undefined;
  }
  const { code, message } = errorOf(json);
  const rateLimited = response.status === 429 || (code !== undefined && (request.rateLimitCodes ?? []).includes(code));
  if (!response.ok || rateLimited) {
    const retriable = rateLimited || response.status >= 500;
    const detail = [message, code === undefined ? undefined : `code ${code}`].filter(Boolean).join(", ");
    throw new PlatformError(`${request.what} failed: HTTP ${response.status}${detail ? ` (${detail})` : ""}.`, {
      retriable,
      retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
      status: response.status,
      code,
    });
  }
  if (json === undefined) throw new PlatformError(`${request.what}: the answer is not JSON.`, { retriable: true, status: response.status });
  return json;
}

export type TPlatformDownload = {
  url: string;
  headers?: Record<string, string>;
  what: string;
  /** The body is refused beyond this (the declared length first, then as it streams). */
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
};

/**
 * A file a message carries (a picture on QQ's CDN, a Feishu message resource): a GET through the
 * same SSRF guard, no redirects followed, the body cut off past `maxBytes`. An error answer is read
 * for the platform's code and message. Failures are PlatformErrors; `tooLarge` says the file was
 * over the limit (so the run can be told why it was skipped).
 */
export async function platformDownload(request: TPlatformDownload): Promise<{ data: Uint8Array; contentType?: string }> {
  const settings = getBehaviourConfig().channels;
  let response: Response;
  try {
    response = await guardedFetch(request.url, {
      method: "GET",
      headers: request.headers,
      redirect: "error",
      allowedPrivateHosts: settings.allowedPrivateHosts,
      timeoutMs: request.timeoutMs,
      maxResponseBytes: request.maxBytes,
      signal: request.signal,
    });
  } catch (error) {
    const tooLarge = isAppError(error) && error.code === "payload_too_large";
    throw new PlatformError(`${request.what}: ${error instanceof Error ? error.message : String(error)}`, { retriable: false, tooLarge, cause: error });
  }
  if (!response.ok) {
    const { code, message } = errorOf(await response.json().catch(() => undefined));
    const detail = [message, code === undefined ? undefined : `code ${code}`].filter(Boolean).join(", ");
    throw new PlatformError(`${request.what} failed: HTTP ${response.status}${detail ? ` (${detail})` : ""}.`, { retriable: response.status === 429 || response.status >= 500, status: response.status, code });
  }
  try {
    return { data: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type") ?? undefined };
  } catch (error) {
    const tooLarge = isAppError(error) && error.code === "payload_too_large";
    throw new PlatformError(`${request.what}: ${error instanceof Error ? error.message : String(error)}`, { retriable: false, tooLarge, cause: error });
  }
}

/** For messages shown to admins and people: the platform's words, never a stack. */
export function describePlatformError(error: unknown): string {
  if (error instanceof PlatformError || isAppError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

