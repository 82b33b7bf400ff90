import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as getSession } from "@/app/api/sessions/[id]/route";
import { GET as getSteps } from "@/app/api/sessions/[id]/steps/route";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import type { TFakeReply, TRecordedRequest } from "../fake-llm/types";
import { contract, firstUserText, lastMessageOf, startAgentsRunner, tasksOf, toolOutputJson, workerOf } from "../support/agents";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";

/**
 * Multi-agent through the real chat route, the real job runner and the scripted model: each worker
 * is a job with a session of its own under the delegate step.
 */
let fake: TFakeLlm;
let runner: TJobRunner;

beforeAll(async () => {
  fake = await startFakeLlm();
  runner = await startAgentsRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await fake.close();
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
