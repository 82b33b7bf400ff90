import { expect } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as createSessionRoute } from "@/app/api/sessions/route";
import { POST as decide } from "@/app/api/sessions/[id]/approvals/[approvalId]/route";
import { resetEnvironment } from "@/lib/config/environment";
import type { TFakeLlm } from "../fake-llm/server";
import { call, ORIGIN } from "./http";
import { readUiStream } from "./ui-stream";

/** Chat helpers over the real route handlers, with the fake LLM as the only provider. */
export function useFakeProvider(fake: TFakeLlm, provider: "openai" | "anthropic" = "openai") {
  process.env.OPENAI_BASE_URL = fake.openaiBaseUrl;
  process.env.OPENAI_API_KEY = "test-openai-key";
  process.env.ANTHROPIC_BASE_URL = fake.anthropicBaseUrl;
  process.env.ANTHROPIC_API_KEY = "test-anthropic-key";
  process.env.XCLAW_PROVIDERS = provider;
  resetEnvironment();
}

export function clearProviderEnvironment() {
  for (const key of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "XCLAW_PROVIDERS"]) delete process.env[key];
  resetEnvironment();
}

export async function newSession(cookie: string): Promise<string> {
  const created = await call(createSessionRoute, "/api/sessions", { cookie, body: {} });
  expect(created.status).toBe(201);
  return created.json.session.id as string;
}

function post(path: string, cookie: string, body: unknown) {
  const headers = new Headers({ host: "localhost:3000", origin: ORIGIN, cookie, "content-type": "application/json" });
  return new Request(`${ORIGIN}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
}

export async function chatResponse(cookie: string, sessionId: string, text: string): Promise<Response> {
  return chat(post("/api/chat", cookie, { sessionId, text }), { params: Promise.resolve({}) as Promise<never> });
}

export async function sendChat(cookie: string, sessionId: string, text: string) {
  return readUiStream(await chatResponse(cookie, sessionId, text));
}

export async function decideResponse(cookie: string, sessionId: string, approvalId: string, body: unknown): Promise<Response> {
  return decide(post(`/api/sessions/${sessionId}/approvals/${approvalId}`, cookie, body), {
    params: Promise.resolve({ id: sessionId, approvalId }) as Promise<never>,
  });
}
