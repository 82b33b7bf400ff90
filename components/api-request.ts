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

/**
 * `discardBody`: for endpoints that answer success with a stream the caller does not read here
 * (an approval decision streams the run's continuation, which the chat follows separately); the
 * body is cancelled and the result is undefined. Errors are read as usual.
 */
export async function apiRequest<TResult = unknown>(
  path: string,
  options: { method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE"; body?: unknown; discardBody?: boolean } = {},
): Promise<TResult> {
  const method = options.method ?? "GET";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        accept: "application/json",
        ...(method === "GET" ? {} : { "content-type": "application/json" }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new ApiRequestError(UNREACHABLE, 0, "network");
  }
  if (response.status === 204) return undefined as TResult;
  if (options.discardBody && response.ok) {
    await response.body?.cancel().catch(() => {});
    return undefined as TResult;
  }
  return readJsonResponse<TResult>(response);
}

/** Uploads a file as the request body (POST), answered with JSON like apiRequest. */
export async function apiUpload<TResult = unknown>(path: string, file: Blob): Promise<TResult> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { accept: "application/json", "content-type": file.type || "application/octet-stream" },
      body: file,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new ApiRequestError(UNREACHABLE, 0, "network");
  }
  return readJsonResponse<TResult>(response);
}

/** The JSON body of an answer, or an ApiRequestError carrying the server's message. */
async function readJsonResponse<TResult>(response: Response): Promise<TResult> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const { code, message } = errorFromBody(body);
    if (response.status === 401) throw new ApiRequestError(SESSION_ENDED, 401, code ?? "unauthorized");
    throw new ApiRequestError(message ?? UNEXPECTED, response.status, code ?? "unknown");
  }
  return body as TResult;
}

export function errorMessage(error: unknown): string {
  return error instanceof ApiRequestError ? error.message : UNEXPECTED;
}
