import { authenticate, type TAuthContext } from "@/lib/auth/authenticate";
import { AppError } from "@/lib/errors";
import { route, toErrorResponse } from "@/lib/http/route";

/**
 * OpenAI clients read errors as `{ error: { message, type, code } }`; xclaw's own shape is
 * `{ error: { code, message } }`. The /v1 routes go through `route()` like every other (request
 * id, logging, no-store) and add the `type` OpenAI SDKs look for, from the status.
 */
const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  413: "invalid_request_error",
  415: "invalid_request_error",
  429: "rate_limit_error",
};

export async function openAiErrorResponse(error: unknown): Promise<Response> {
  const response = toErrorResponse(error);
  const body = (await response.json()) as { error: { code: string; message: string } };
  const type = TYPE_BY_STATUS[response.status] ?? (response.status >= 500 ? "server_error" : "invalid_request_error");
  return Response.json({ error: { message: body.error.message, type, code: body.error.code, param: null } }, { status: response.status, headers: response.headers });
}

type THandler = (request: Request) => Promise<Response>;

export function openAiRoute(handler: THandler) {
  return route(async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      return openAiErrorResponse(error);
    }
  });
}

/**
 * The /v1 API takes personal API tokens only: it is for programs, and a cookie-authenticated
 * cross-site request has no business here (the web chat has its own API).
 */
export async function requireApiToken(request: Request): Promise<TAuthContext> {
  const auth = request.headers.get("authorization") ? await authenticate(request) : undefined;
  if (!auth || auth.via !== "api-token") {
    throw new AppError("unauthorized", "Send a personal API token (Settings → API tokens) as `Authorization: Bearer xclaw_…`; with the openai SDK, pass it as apiKey.");
  }
  return auth;
}
