import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteSessionRoute, GET as getSession } from "@/app/api/sessions/[id]/route";
import { POST as rollbackRoute } from "@/app/api/sessions/[id]/rollback/route";
import { GET as getSteps } from "@/app/api/sessions/[id]/steps/route";
import { createAgentProfile, ZAgentProfileInput } from "@/lib/agents/profiles";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import type { TFakeReply, TRecordedRequest } from "../fake-llm/types";
import { contract, firstUserText, lastMessageOf, startAgentsRunner, tasksOf, toolOutputJson, workerOf } from "../support/agents";
import { chatResponse, clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { readUiStream, type TChunk } from "../support/ui-stream";
import { waitUntil } from "../support/jobs";

/**
 * Multi-agent through the real chat route, the real job runner and the scripted model: each worker
 * is a job with a session of its own under the delegate step.
 */
let fake: TFakeLlm;
let runner: TJobRunner;
let dataDirectory: string;

beforeAll(async () => {
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-agents-"));
  process.env.XCLAW_DATA_DIR = dataDirectory;
  resetEnvironment();
  fake = await startFakeLlm();
  runner = await startAgentsRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await fake.close();
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
  await rm(dataDirectory, { recursive: true, force: true });
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

/** The orchestrator asks for `first`, then answers with `final` once a tool result is back. */
function orchestrator(first: TFakeReply, final: (request: TRecordedRequest) => TFakeReply, workers: (agent: string, request: TRecordedRequest) => TFakeReply | Promise<TFakeReply>) {
  fake.script(async (request) => {
    const agent = workerOf(request);
    if (agent) return workers(agent, request);
    return lastMessageOf(request).role === "tool" ? final(request) : first;
  });
}

describe("delegate", () => {
  it("runs one worker as a job in its own session under the delegate step and returns its reply contract", async () => {
    const { user, cookie } = await createUser();
    const other = await createUser();
    const sessionId = await newSession(cookie);
    const task = "Write a function add(a, b) in TypeScript.\nReturn only the code.";
    orchestrator(
      { toolCalls: [{ name: "delegate", arguments: { agent: "coder", task } }] },
      () => ({ text: "The coder wrote it." }),
      () => ({ text: contract({ exports: ["add"], language: "typescript" }) }),
    );
    const stream = await sendChat(cookie, sessionId, "Get the coder to write add()");
    expect(stream.text).toContain("The coder wrote it.");

    const result = await toolOutputJson(sessionId, "delegate");
    expect(result).toMatchObject({ agent: "coder", status: "success", summary: { exports: ["add"], language: "typescript" }, artifact_pointers: {} });
    const [row] = await tasksOf(sessionId);
    expect(result.session).toBe(row!.sessionId);
    expect(row).toMatchObject({ status: "COMPLETED", agent: "coder", kind: "delegate" });

    // The worker: a sub-agent session under the parent, its first message the task verbatim,
    // its first step hanging under the delegate step; its model saw the coder's role and the contract.
    const worker = await db().chatSession.findUniqueOrThrow({ where: { id: result.session } });
    expect(worker).toMatchObject({ userId: user.id, trigger: "AGENT", parentSessionId: sessionId, status: "SUCCESS" });
    const delegateStep = await db().step.findFirstOrThrow({ where: { sessionId, name: "delegate" } });
    const firstStep = await db().step.findFirstOrThrow({ where: { sessionId: worker.id }, orderBy: { seq: "asc" } });
    expect(firstStep).toMatchObject({ type: "USER_INPUT", parentStepId: delegateStep.id });
    expect((firstStep.input as { text: string }).text).toBe(task);
    const workerRequest = fake.requests.find((request) => workerOf(request) === "coder")!;
    expect(firstUserText(workerRequest)).toBe(task);
    expect(workerRequest.body.messages[0].content).toContain('"artifact_pointers"');
    // Only the history it was given: no trace of the parent's conversation.
    expect(JSON.stringify(workerRequest.body.messages)).not.toContain("Get the coder");

    // One trace tree: the parent's steps point at the worker's session.
    const steps = await call(getSteps, `/api/sessions/${sessionId}/steps`, { cookie, params: { id: sessionId } });
    const listed = steps.json.steps.find((step: { name: string }) => step.name === "delegate");
    expect(listed).toMatchObject({ childSessionId: worker.id, childSessions: [{ sessionId: worker.id, agent: "coder", status: "completed" }] });
    // The worker's session is its owner's to read, and nobody else's.
    expect((await call(getSession, `/api/sessions/${worker.id}`, { cookie, params: { id: worker.id } })).status).toBe(200);
    expect((await call(getSession, `/api/sessions/${worker.id}`, { cookie: other.cookie, params: { id: worker.id } })).status).toBe(404);
    expect((await call(getSteps, `/api/sessions/${worker.id}/steps`, { cookie: other.cookie, params: { id: worker.id } })).status).toBe(404);
  });
});

/** The latest card detail the parent's stream carried for its multi-agent call. */
function cardDetails(chunks: TChunk[]): { kind: string; workers: { agent: string; status: string; approval?: { approvalId: string; toolName: string } }[] }[] {
  return chunks.filter((chunk) => chunk.type === "data-progress" && (chunk.data as { detail?: unknown }).detail).map((chunk) => (chunk.data as { detail: never }).detail);
}

async function ownAgent(userId: string, name: string, extra: Record<string, unknown> = {}) {
  return createAgentProfile({ owner: userId, input: ZAgentProfileInput.parse({ name, description: `${name} for tests`, systemPrompt: `You are ${name}, a test agent.`, ...extra }) });
}

describe("debate", () => {
  it("asks the workers in parallel and returns partial results when one times out, marked as such", async () => {
    const { user, cookie } = await createUser();
    await ownAgent(user.id, "slowpoke", { timeoutSeconds: 1 });
    const sessionId = await newSession(cookie);
    orchestrator(
      { toolCalls: [{ name: "debate", arguments: { question: "Redis or SQLite for sessions?", agents: ["coder", "skeptic", "slowpoke"] } }] },
      () => ({ text: "Weighing two answers." }),
      (agent) => (agent === "slowpoke" ? { hang: true } : { text: contract({ pick: agent === "coder" ? "redis" : "sqlite" }) }),
    );
    const stream = await sendChat(cookie, sessionId, "debate it");
    expect(stream.text).toContain("Weighing two answers.");
    const result = await toolOutputJson(sessionId, "debate");
    expect(result.question).toBe("Redis or SQLite for sessions?");
    expect(result.results.map((worker: { agent: string; status: string }) => [worker.agent, worker.status])).toEqual([
      ["coder", "success"],
      ["skeptic", "success"],
      ["slowpoke", "timeout"],
    ]);
    expect(result.results[0].summary).toEqual({ pick: "redis" });
    expect(result.note).toContain("slowpoke (timeout)");
    const slow = (await tasksOf(sessionId)).find((task) => task.agent === "slowpoke")!;
    expect(slow.status).toBe("TIMED_OUT");
    // The time limit stopped the worker's run (and with it its model call).
    const slowSession = await db().chatSession.findUniqueOrThrow({ where: { id: slow.sessionId! } });
    expect(slowSession.status).toBe("FAILED");
    expect(slowSession.statusReason).toContain("time limit");
    const model = await db().step.findFirstOrThrow({ where: { sessionId: slow.sessionId!, type: "MODEL_CALL" } });
    expect(model.status).toBe("FAILED");
    // Every worker was on the card while it ran.
    const details = cardDetails(stream.chunks);
    expect(details.at(-1)!.workers.map((worker) => [worker.agent, worker.status])).toEqual([
      ["coder", "completed"],
      ["skeptic", "completed"],
      ["slowpoke", "timed_out"],
    ]);
  });

  it("refuses an unknown agent with the list of the available ones, starting nobody", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    orchestrator({ toolCalls: [{ name: "debate", arguments: { question: "q", agents: ["coder", "nobody"] } }] }, () => ({ text: "ok" }), () => ({ text: "never" }));
    await sendChat(cookie, sessionId, "go");
    const step = await db().step.findFirstOrThrow({ where: { sessionId, name: "debate" } });
    const output = step.output as { content: { text: string }[]; isError: boolean };
    expect(output.isError).toBe(true);
    expect(output.content[0]!.text).toContain('Unknown agent "nobody". Available agents: coder, optimizer, reviewer, skeptic, writer.');
    expect(await tasksOf(sessionId)).toHaveLength(0);
  });
});

describe("pipeline", () => {
  it("passes each step's output to the next as {{input}}, and a long one as a file pointer", async () => {
    const { user, cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const long = "x".repeat(5_000);
    orchestrator(
      {
        toolCalls: [
          {
            name: "pipeline",
            arguments: {
              steps: [
                { agent: "writer", task: "Extract the key points of: LLM agents need memory.{{input}}" },
                { agent: "writer", task: "Translate into Chinese:\n{{input}}" },
                { agent: "reviewer", task: "Summarise:\n{{input}}" },
              ],
            },
          },
        ],
      },
      () => ({ text: "Pipeline done." }),
      (_agent, request) => {
        const task = firstUserText(request);
        if (task.startsWith("Extract")) return { text: "Agents need persistent memory." };
        if (task.startsWith("Translate")) return { text: contract(long) };
        return { text: contract({ summary: "摘要" }) };
      },
    );
    await sendChat(cookie, sessionId, "run the pipeline");
    const tasks = await tasksOf(sessionId);
    expect(tasks.map((task) => task.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    // Step 1: {{input}} is empty; step 2 got step 1's text (not JSON: the text fallback).
    expect(tasks[0]!.task).toBe("Extract the key points of: LLM agents need memory.");
    expect(tasks[1]!.task).toBe("Translate into Chinese:\nAgents need persistent memory.");
    // Step 3: step 2's output was too long to pass inline; it arrived as a file in the pipeline's folder.
    const pointer = `shared/${tasks[0]!.taskKey}/step-2-output.md`;
    expect(tasks.every((task) => task.taskKey === tasks[0]!.taskKey)).toBe(true);
    expect(tasks[2]!.task).toContain(`in the file ${pointer}`);
    expect(tasks[2]!.task).not.toContain(long);
    expect(await readFile(path.join(dataDirectory, "workspaces", user.id, pointer), "utf8")).toBe(long);
    expect(tasks[1]!.artifacts).toEqual([pointer]);
    const result = await toolOutputJson(sessionId, "pipeline");
    expect(result).toMatchObject({ status: "success", output: { summary: "摘要" } });
    expect(result.steps).toHaveLength(3);
  });

  it("stops at the first failing step and says which", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    orchestrator(
      { toolCalls: [{ name: "pipeline", arguments: { steps: [{ agent: "coder", task: "step one" }, { agent: "writer", task: "step two {{input}}" }] } }] },
      () => ({ text: "It failed." }),
      () => ({ text: contract({ reason: "cannot" }, {}, "error") }),
    );
    await sendChat(cookie, sessionId, "go");
    const result = await toolOutputJson(sessionId, "pipeline");
    expect(result.status).toBe("error");
    expect(result.steps.map((step: { status: string }) => step.status)).toEqual(["error", "error"]);
    expect(result.steps[1].error).toBe("Not run: an earlier step failed.");
    const tasks = await tasksOf(sessionId);
    expect(tasks[1]!.sessionId).toBeNull();
  });
});

describe("limits", () => {
  it("runs at most agents.maxParallelWorkers workers of a call at once, and refuses workers past agents.maxDelegationsPerRun", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    let inFlight = 0;
    let most = 0;
    const five = ["coder", "reviewer", "writer", "skeptic", "optimizer"];
    let parentCalls = 0;
    fake.script(async (request) => {
      if (workerOf(request)) {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 150));
        inFlight--;
        return { text: contract({ ok: true }) };
      }
      parentCalls++;
      if (parentCalls <= 2) return { toolCalls: [{ name: "debate", arguments: { question: `round ${parentCalls}`, agents: five } }] };
      if (parentCalls === 3) return { toolCalls: [{ name: "delegate", arguments: { agent: "coder", task: "one more" } }] };
      return { text: "stopped delegating" };
    });
    await sendChat(cookie, sessionId, "go");
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThanOrEqual(2);
    expect(await tasksOf(sessionId)).toHaveLength(10);
    const refused = await db().step.findFirstOrThrow({ where: { sessionId, name: "delegate" } });
    expect((refused.output as { content: { text: string }[] }).content[0]!.text).toContain("limit of 10 per run");
  });

  it("lets a worker that may delegate start workers one level down, and no further (agents.maxDepth)", async () => {
    const { user, cookie } = await createUser();
    await ownAgent(user.id, "lead", { mayDelegate: true });
    await ownAgent(user.id, "sublead", { mayDelegate: true });
    const sessionId = await newSession(cookie);
    const toolsOf = new Map<string, string[]>();
    fake.script((request) => {
      const agent = workerOf(request);
      toolsOf.set(agent ?? "main", (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name));
      const last = lastMessageOf(request);
      if (!agent) return last.role === "tool" ? { text: "done" } : { toolCalls: [{ name: "delegate", arguments: { agent: "lead", task: "lead this" } }] };
      if (agent === "lead") return last.role === "tool" ? { text: contract({ led: true }) } : { toolCalls: [{ name: "delegate", arguments: { agent: "sublead", task: "go deeper" } }] };
      // Depth 2: no delegate tool is offered; calling it anyway is an unknown tool.
      return last.role === "tool" ? { text: contract({ deep: true }) } : { toolCalls: [{ name: "delegate", arguments: { agent: "coder", task: "too deep" } }] };
    });
    await sendChat(cookie, sessionId, "go");
    expect(toolsOf.get("main")).toEqual(expect.arrayContaining(["delegate", "debate", "pipeline", "agent_results"]));
    expect(toolsOf.get("main")).not.toContain("deliver");
    expect(toolsOf.get("lead")).toEqual(expect.arrayContaining(["delegate", "deliver"]));
    expect(toolsOf.get("sublead")).not.toContain("delegate");
    const leadTask = (await tasksOf(sessionId))[0]!;
    const subTask = (await tasksOf(leadTask.sessionId!))[0]!;
    expect(subTask).toMatchObject({ agent: "sublead", status: "COMPLETED" });
    const refused = await db().step.findFirstOrThrow({ where: { sessionId: subTask.sessionId!, name: "delegate" } });
    expect((refused.output as { content: { text: string }[] }).content[0]!.text).toContain('Unknown tool "delegate"');
    expect(await tasksOf(subTask.sessionId!)).toHaveLength(0);
    // The tree: main → lead → sublead, each under its delegate step.
    const sub = await db().chatSession.findUniqueOrThrow({ where: { id: subTask.sessionId! } });
    expect(sub.parentSessionId).toBe(leadTask.sessionId);
  });
});

describe("more limits and profiles", () => {
  it("refuses a task that already failed agents.maxAttemptsPerTask times for that agent in this chat", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    let parentCalls = 0;
    fake.script((request) => {
      if (workerOf(request)) return { text: contract({ why: "no spec" }, {}, "error") };
      parentCalls++;
      return parentCalls <= 4 ? { toolCalls: [{ name: "delegate", arguments: { agent: "coder", task: "Build it." } }] } : { text: "giving up" };
    });
    await sendChat(cookie, sessionId, "go");
    expect(await tasksOf(sessionId)).toHaveLength(3);
    const steps = await db().step.findMany({ where: { sessionId, name: "delegate" }, orderBy: { seq: "asc" } });
    expect(steps).toHaveLength(4);
    expect((steps[3]!.output as { content: { text: string }[] }).content[0]!.text).toContain("already failed 3 times for coder");
  });

  it("runs a worker on its profile's model", async () => {
    const { user, cookie } = await createUser();
    await ownAgent(user.id, "special", { model: "special-model-1" });
    const sessionId = await newSession(cookie);
    orchestrator({ toolCalls: [{ name: "delegate", arguments: { agent: "special", task: "hi" } }] }, () => ({ text: "ok" }), () => ({ text: contract({}) }));
    await sendChat(cookie, sessionId, "go");
    const models = fake.requests.map((request) => [workerOf(request) ?? "main", request.body.model]);
    expect(models).toContainEqual(["special", "special-model-1"]);
    expect(models.find(([agent]) => agent === "main")![1]).not.toBe("special-model-1");
  });

  it("rolling the parent back past a delegate step removes that worker's session", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    orchestrator({ toolCalls: [{ name: "delegate", arguments: { agent: "writer", task: "a haiku" } }] }, () => ({ text: "ok" }), () => ({ text: "words" }));
    await sendChat(cookie, sessionId, "go");
    const [task] = await tasksOf(sessionId);
    const modelStep = await db().step.findFirstOrThrow({ where: { sessionId, type: "MODEL_CALL" }, orderBy: { seq: "asc" } });
    const rolled = await call(rollbackRoute, "/x", { cookie, body: { stepId: `s${String(modelStep.seq).padStart(4, "0")}` }, params: { id: sessionId } });
    expect(rolled.status).toBe(200);
    expect(await db().chatSession.findUnique({ where: { id: task!.sessionId! } })).toBeNull();
    expect(await tasksOf(sessionId)).toHaveLength(0);
  });
});

describe("deleting the parent chat", () => {
  it("deletes its workers' sessions and tasks too", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    orchestrator({ toolCalls: [{ name: "delegate", arguments: { agent: "writer", task: "a limerick" } }] }, () => ({ text: "ok" }), () => ({ text: "words" }));
    await sendChat(cookie, sessionId, "go");
    const [task] = await tasksOf(sessionId);
    expect((await call(deleteSessionRoute, "/x", { cookie, method: "DELETE", params: { id: sessionId } })).status).toBe(204);
    expect(await db().chatSession.findUnique({ where: { id: task!.sessionId! } })).toBeNull();
    expect(await tasksOf(sessionId)).toHaveLength(0);
  });
});

describe("approvals of workers", () => {
  it("shows a worker's approval on the parent's card, pauses only that worker, and lets only the owner decide it", async () => {
    const { cookie } = await createUser();
    const other = await createUser();
    const sessionId = await newSession(cookie);
    orchestrator(
      { toolCalls: [{ name: "debate", arguments: { question: "Write notes.md with your view", agents: ["coder", "skeptic"] } }] },
      () => ({ text: "Both answered." }),
      (agent, request) => {
        if (agent === "skeptic") return { text: contract({ risk: "low" }) };
        return lastMessageOf(request).role === "tool" ? { text: contract({ wrote: "notes.md" }) } : { toolCalls: [{ name: "write_file", arguments: { path: "notes.md", content: "redis" } }] };
      },
    );
    const response = chatResponse(cookie, sessionId, "debate");
    // The coder waits for approval; the skeptic finishes meanwhile.
    let approval: { id: string; sessionId: string } | undefined;
    await waitUntil(async () => {
      approval = (await db().approval.findFirst({ where: { status: "PENDING", session: { parentSessionId: sessionId } } })) ?? undefined;
      return approval !== undefined;
    }, "the coder's approval");
    await waitUntil(async () => (await tasksOf(sessionId)).some((task) => task.agent === "skeptic" && task.status === "COMPLETED"), "the skeptic to finish");
    const coder = (await tasksOf(sessionId)).find((task) => task.agent === "coder")!;
    expect(coder.sessionId).toBe(approval!.sessionId);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("RUNNING");

    // Another user can neither see nor decide it.
    expect((await call(getSession, "/x", { cookie: other.cookie, params: { id: approval!.sessionId } })).status).toBe(404);
    const forged = await decideResponse(other.cookie, approval!.sessionId, approval!.id, { decision: "approve" });
    expect(forged.status).toBe(404);
    expect((await db().approval.findUniqueOrThrow({ where: { id: approval!.id } })).status).toBe("PENDING");

    // The owner decides from the parent's card.
    const decided = await decideResponse(cookie, approval!.sessionId, approval!.id, { decision: "approve" });
    expect(decided.status).toBe(200);
    await decided.text();
    const stream = await readUiStream(await response);
    expect(stream.text).toContain("Both answered.");
    const details = cardDetails(stream.chunks);
    const waiting = details.find((detail) => detail.workers.some((worker) => worker.status === "paused"));
    expect(waiting!.workers.find((worker) => worker.agent === "coder")!.approval).toMatchObject({ approvalId: approval!.id, toolName: "write_file" });
    const result = await toolOutputJson(sessionId, "debate");
    expect(result.results.map((worker: { status: string }) => worker.status)).toEqual(["success", "success"]);
    expect(result.results[0].summary).toEqual({ wrote: "notes.md" });
  });
});
