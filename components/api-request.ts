/**
 * Browser-side calls to xclaw's JSON API. Failures become an ApiRequestError whose message is the
 * API's own `{ error: { message } }` text (written for people), or a plain sentence for network
 * trouble and unexpected responses — never a stack trace.
 */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(message: string, status: number, code: string) {
    super(message);
    this.name = "ApiRequestError";
    this.status = status;
    this.code = code;
  }
}

const SESSION_ENDED = "Your session has ended. Sign in again to continue.";
const UNREACHABLE = "Could not reach the server. Check your connection and try again.";
const UNEXPECTED = "Something went wrong. Try again; if it keeps happening, tell an administrator.";

function errorFromBody(body: unknown): { code?: string; message?: string } {
  if (!body || typeof body !== "object" || !("error" in body)) return {};
  const error = (body as { error: unknown }).error;
  if (!error || typeof error !== "object") return {};
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === "string" ? code : undefined, message: typeof message === "string" ? message : undefined };
}

/** Sends a request; a connection failure becomes an ApiRequestError, an abort is passed on as it is. */
async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, { ...init, credentials: "same-origin", cache: "no-store" });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiRequestError(UNREACHABLE, 0, "network");
  }
}

export async function apiRequest<TResult = unknown>(path: string, options: { method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE"; body?: unknown } = {}): Promise<TResult> {
  const method = options.method ?? "GET";
  const response = await send(path, {
    method,
    headers: {
      accept: "application/json",
      ...(method === "GET" ? {} : { "content-type": "application/json" }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (response.status === 204) return undefined as TResult;
  return readJsonResponse<TResult>(response);
}

/**
 * A POST answered with a stream (an approval decision and Resume answer with the run's
 * continuation): its body once the server has accepted the request, or null when there is nothing
 * to read (204). A refusal is an ApiRequestError with the server's message, as with apiRequest.
 */
export async function apiStream(path: string, options: { body?: unknown; signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array> | null> {
  const response = await send(path, {
    method: "POST",
    headers: { accept: "text/event-stream", "content-type": "application/json" },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (!response.ok) throw await errorOfResponse(response);
  return response.status === 204 ? null : response.body;
}

/** Uploads a file as the request body (POST), answered with JSON like apiRequest. */
export async function apiUpload<TResult = unknown>(path: string, file: Blob): Promise<TResult> {
  const response = await send(path, { method: "POST", headers: { accept: "application/json", "content-type": file.type || "application/octet-stream" }, body: file });
  return readJsonResponse<TResult>(response);
}

/** The JSON body of an answer, or an ApiRequestError carrying the server's message. */
async function readJsonResponse<TResult>(response: Response): Promise<TResult> {
  if (!response.ok) throw await errorOfResponse(response);
  try {
    return (await response.json()) as TResult;
  } catch {
    return undefined as TResult;
  }
}

/** A refusal as an ApiRequestError: the API's own message, or a plain sentence. */
async function errorOfResponse(response: Response): Promise<ApiRequestError> {
  const { code, message } = errorFromBody(await response.json().catch(() => undefined));
  if (response.status === 401) return new ApiRequestError(SESSION_ENDED, 401, code ?? "unauthorized");
  return new ApiRequestError(message ?? UNEXPECTED, response.status, code ?? "unknown");
}

export function errorMessage(error: unknown): string {
  return error instanceof ApiRequestError ? error.message : UNEXPECTED;
}
