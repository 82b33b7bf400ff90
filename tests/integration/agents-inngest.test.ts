import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { InngestTestEngine } from "@inngest/test";
import { Inngest } from "inngest";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { agentWorkerJob } from "@/lib/agents/worker-job";
import { WORKER_EVENT } from "@/lib/agents/worker-event";
import { jobCatalog } from "@/lib/app/job-catalog";
import { resetEnvironment } from "@/lib/config/environment";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { inngestClient, inngestLogger } from "@/lib/jobs/inngest-client";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { contract, lastMessageOf, tasksOf, toolOutputJson, workerOf } from "../support/agents";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";

/**
 * The same fan-out with jobs.runner: inngest. sendEvent hands the workers' events to the Inngest
 * client; here its send runs each event's function through @inngest/test, which executes the job
 * step by step the way Inngest does (memoized steps, replays). The parent waits on the task rows
 * exactly as with the embedded runner.
 */
const directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-agents-inngest-"));
await writeFile(path.join(directory, "xclaw.yaml"), "jobs: { runner: inngest }\n");
const savedConfig = process.env.XCLAW_CONFIG;
process.env.XCLAW_CONFIG = path.join(directory, "xclaw.yaml");
resetEnvironment();

let fake: TFakeLlm;
const inngest = new Inngest({ id: "xclaw-test", isDev: true, logger: inngestLogger() });
const engine = new InngestTestEngine({ function: toInngestFunction(inngest, agentWorkerJob, { registry: createJobRegistry(jobCatalog), maxStepOutputBytes: 512 * 1024 }) });
const executions: Promise<{ result?: unknown; error?: unknown }>[] = [];
const sentEvents: { id?: string; name: string }[] = [];

beforeAll(async () => {
  fake = await startFakeLlm();
  useFakeProvider(fake);
  vi.spyOn(inngestClient(), "send").mockImplementation((async (events: { id?: string; name: string; data: Record<string, unknown> }[]) => {
    const list = Array.isArray(events) ? events : [events];
    for (const event of list) {
      // Other capabilities send their own events (memory extraction after a run): not this test's.
      if (event.name !== WORKER_EVENT) continue;
      sentEvents.push(event);
      executions.push(engine.execute({ events: [{ name: event.name, data: event.data, ...(event.id ? { id: event.id } : {}) }] }));
    }
    return { ids: list.map((event) => event.id ?? "") };
  }) as never);
});
afterEach(() => fake.reset());
afterAll(async () => {
  vi.restoreAllMocks();
  await fake.close();
  clearProviderEnvironment();
  if (savedConfig === undefined) delete process.env.XCLAW_CONFIG;
  else process.env.XCLAW_CONFIG = savedConfig;
  resetEnvironment();
  await rm(directory, { recursive: true, force: true });
});

it("runs a debate's workers as Inngest function runs and returns their results", async () => {
  const { cookie } = await createUser();
  const sessionId = await newSession(cookie);
  fake.script((request) => {
    const agent = workerOf(request);
    if (agent) return { text: contract({ view: `${agent}'s view` }) };
    return lastMessageOf(request).role === "tool" ? { text: "Three views weighed." } : { toolCalls: [{ name: "debate", arguments: { question: "Monolith or services?", agents: ["coder", "skeptic", "optimizer"] } }] };
  });
  const stream = await sendChat(cookie, sessionId, "debate");
  expect(stream.text).toContain("Three views weighed.");

  const outcomes = await Promise.all(executions);
  expect(outcomes.map((outcome) => outcome.error)).toEqual([undefined, undefined, undefined]);
  expect(outcomes.map((outcome) => outcome.result)).toEqual([{ status: "COMPLETED" }, { status: "COMPLETED" }, { status: "COMPLETED" }]);
  // One event per worker, each with its idempotency id (parent session, delegate step, index).
  const tasks = await tasksOf(sessionId);
  expect(sentEvents.map((event) => event.id)).toEqual(tasks.map((task) => `agents:${sessionId}:${task.parentStepId}:${task.index}`));
  const result = await toolOutputJson(sessionId, "debate");
  expect(result.results.map((worker: { agent: string; summary: unknown }) => [worker.agent, worker.summary])).toEqual([
    ["coder", { view: "coder's view" }],
    ["skeptic", { view: "skeptic's view" }],
    ["optimizer", { view: "optimizer's view" }],
  ]);
  expect(tasks.every((task) => task.sessionId && task.status === "COMPLETED")).toBe(true);
});
