import { db } from "@/lib/db/client";
import type { AgentTask } from "@/lib/db/generated/client";
import { jobCatalog } from "@/lib/app/job-catalog";
import { createJobRunner, type TJobRunner } from "@/lib/jobs/job-runner";
import type { TRecordedRequest } from "../fake-llm/types";

/** Helpers for the multi-agent tests: a job runner with the app's jobs, and reading the scripted model's requests. */
export async function startAgentsRunner(options: { leaseMs?: number } = {}): Promise<TJobRunner> {
  const runner = createJobRunner({ jobs: jobCatalog, pollIntervalMs: 50, leaseMs: options.leaseMs ?? 5_000, retryBaseDelayMs: 20, cron: false, concurrency: 20 });
  await runner.start();
  return runner;
}

export function systemOf(request: TRecordedRequest): string {
  const first = request.body.messages?.[0];
  if (request.api === "anthropic") return typeof request.body.system === "string" ? request.body.system : JSON.stringify(request.body.system ?? "");
  return first?.role === "system" ? String(first.content) : "";
}

/** The worker agent a model request comes from (its profile's prompt starts "You are <name>,"), if any. */
export function workerOf(request: TRecordedRequest): string | undefined {
  const system = systemOf(request);
  if (!system.includes("## How you work")) return undefined;
  return /\nYou are (\w+), /.exec(system)?.[1];
}

export function lastMessageOf(request: TRecordedRequest): { role: string; content: unknown } {
  return request.body.messages.at(-1);
}

/** The first user message of a request: a worker's task. */
export function firstUserText(request: TRecordedRequest): string {
  const user = request.body.messages.find((message: { role: string }) => message.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

export function contract(summary: unknown, pointers: Record<string, string> = {}, status = "success"): string {
  return JSON.stringify({ status, summary_data: summary, artifact_pointers: pointers });
}

export async function tasksOf(parentSessionId: string): Promise<AgentTask[]> {
  return db().agentTask.findMany({ where: { parentSessionId }, orderBy: [{ createdAt: "asc" }, { index: "asc" }] });
}

/** The JSON a delegate / debate / pipeline call returned, from its stored step. */
// `any` on purpose: tests read arbitrary fields of the result, as with the fake's request bodies.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function toolOutputJson(sessionId: string, name: string): Promise<any> {
  const step = await db().step.findFirstOrThrow({ where: { sessionId, type: "TOOL_CALL", name }, orderBy: { seq: "desc" } });
  const text = (step.output as { content: { text: string }[] }).content[0]!.text;
  return JSON.parse(text);
}
