/**
 * The one error type of xclaw. Domain code throws it with a code that says what went wrong; the
 * route wrapper (lib/http/route.ts) turns it into `{ error: { code, message } }` with the status
 * from STATUS_BY_CODE. The message is shown to people, so it must be clear and free of secrets.
 */
export const STATUS_BY_CODE = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type TErrorCode = keyof typeof STATUS_BY_CODE;

export class AppError extends Error {
  readonly code: TErrorCode;
  /** Extra response headers, e.g. Retry-After for rate limits. */
  readonly headers: Record<string, string>;

  constructor(code: TErrorCode, message: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
