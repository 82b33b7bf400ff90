import { randomUUID } from "node:crypto";
import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError, isAppError, type TErrorCode } from "@/lib/errors";
import { assertCleanStrings, isJsonMediaType, readBodyText } from "@/lib/http/request-body";
import { createLogger, runWithRequestId } from "@/lib/observability/logger";

/**
 * The one wrapper around every route handler: gives the request an id (echoed as `x-request-id`),
 * logs one line per request, marks answers `Cache-Control: no-store` unless the handler chose a
 * policy, and turns errors into `{ error: { code, message } }` — zod errors
 * into 400 with the first problem spelled out, AppError into its status, anything else into a
 * logged, generic 500 that leaks no internals.
 */
const log = createLogger("http");

type TRouteContext<TParams> = { params: Promise<TParams> };
type THandler<TParams> = (request: Request, context: { params: TParams; requestId: string }) => Promise<Response>;

export function errorResponse(code: TErrorCode | string, message: string, status: number, headers: Record<string, string> = {}) {
  return Response.json({ error: { code, message } }, { status, headers });
}

// zod's built-in messages ("Invalid input: expected string, received undefined") need the field
// name to make sense; our own messages ("Enter a valid email address.") are complete sentences.
const ZOD_DEFAULT_MESSAGE = /^(Invalid|Too (big|small)|Expected|Unrecognized)/;

function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid request.";
  const where = issue.path.join(".");
  if (issue.code === "unrecognized_keys") return `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}.`;
  if (!ZOD_DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return where ? `${where} is required.` : "A JSON body is required.";
  return where ? `${where}: ${issue.message}` : issue.message;
}

export function toErrorResponse(error: unknown): Response {
  if (isAppError(error)) return errorResponse(error.code, error.message, error.status, error.headers);
  if (error instanceof z.ZodError) return errorResponse("bad_request", describeZodError(error), 400);
  log.error("unhandled error", { error });
  return errorResponse("internal", "Something went wrong on our side. Try again; if it keeps happening, tell an administrator.", 500);
}

export function route<TParams = Record<string, never>>(handler: THandler<TParams>) {
  return async (request: Request, context: TRouteContext<TParams>): Promise<Response> => {
    const incomingId = request.headers.get("x-request-id");
    const requestId = incomingId && /^[\w.-]{1,100}$/.test(incomingId) ? incomingId : randomUUID();
    return runWithRequestId(requestId, async () => {
      const started = performance.now();
      let response: Response;
      try {
        response = await handler(request, { params: (await context?.params) ?? ({} as TParams), requestId });
      } catch (error) {
        response = toErrorResponse(error);
      }
      response.headers.set("x-request-id", requestId);
      // API answers are private to the caller (or say something about them); a shared cache or the
      // browser's back/forward cache must not keep them. Public handlers set their own policy.
      if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
      const path = new URL(request.url).pathname;
      log.info("request", { method: request.method, path, status: response.status, ms: Math.round(performance.now() - started) });
      return response;
    });
  };
}

/**
 * Parses a JSON body with a zod schema. Every JSON route goes through here, so this is where the
 * body rules live: a JSON media type (415 otherwise), at most `http.maxJsonBytes` (413, enforced
 * while reading), UTF-8, and no string PostgreSQL cannot store (400 naming the field).
 */
export async function readJson<TSchema extends z.ZodType>(request: Request, schema: TSchema): Promise<z.infer<TSchema>> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw new AppError("unsupported_media_type", "Send a JSON body with `Content-Type: application/json`.");
  }
  const text = await readBodyText(request, getBehaviourConfig().http.maxJsonBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.");
  }
  assertCleanStrings(body);
  return schema.parse(body);
}
