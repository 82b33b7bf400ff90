import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteSessionRoute, GET as getSession, PATCH as renameSessionRoute } from "@/app/api/sessions/[id]/route";
import { POST as fork } from "@/app/api/sessions/[id]/fork/route";
import { POST as resume } from "@/app/api/sessions/[id]/resume/route";
import { POST as rollback } from "@/app/api/sessions/[id]/rollback/route";
import { GET as getSteps } from "@/app/api/sessions/[id]/steps/route";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import { INTERRUPTED_TOOL_OBSERVATION } from "@/lib/sessions/model-history";
import { waitForRun } from "@/lib/runs/local-runs";
import { RESUME_INSTRUCTION } from "@/lib/runs/claim-for-input";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser, ORIGIN } from "../support/http";
import { readUiStream } from "../support/ui-stream";

let fake: TFakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => fake.close());
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

/** Two exchanges: s0001 user, s0002 model(tool call), s0003 tool, s0004 model, s0005 user, s0006 model. */
async function twoExchanges(cookie: string) {
  const sessionId = await newSession(cookie);
  fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "2+2" } }] }, { text: "Four." }, { text: "You said thanks." }]);
  await sendChat(cookie, sessionId, "2+2?");
  await sendChat(cookie, sessionId, "thanks");
  return sessionId;
}

describe("steps, rollback and fork", () => {
  it("lists steps in order with keys, types, parents and durations", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    const { steps } = (await call(getSteps, "/x", { cookie, params: { id: sessionId } })).json;
    expect(steps.map((step: { key: string; type: string; name: string }) => `${step.key} ${step.type} ${step.name}`)).toEqual([
      "s0001 user_input user",
      "s0002 model_call model",
      "s0003 tool_call calculator",
      "s0004 model_call model",
      "s0005 user_input user",
      "s0006 model_call model",
    ]);
    expect(steps[2].parentStepId).toBe(steps[1].id);
    expect(steps.every((step: { status: string; durationMs: number }) => step.status === "completed" && step.durationMs >= 0)).toBe(true);
  });

  it("rolls back a step and everything after it; the model then sees only what is left", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    const result = await call(rollback, "/x", { cookie, params: { id: sessionId }, body: { stepId: "s0005" } });
    expect(result.status).toBe(200);
    expect(result.json.removed).toBe(2);
    fake.script([{ text: "Fresh." }]);
    await sendChat(cookie, sessionId, "new question");
    const seen = fake.requests.at(-1)!.body.messages.slice(1);
    expect(seen.map((message: { role: string; content: unknown }) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(seen.at(-1).content).toBe("new question");
    const { steps } = (await call(getSteps, "/x", { cookie, params: { id: sessionId } })).json;
    expect(steps.map((step: { key: string }) => step.key)).toEqual(["s0001", "s0002", "s0003", "s0004", "s0005", "s0006"]);
  });

  it("rolling back into the middle of a tool round trip still gives the model paired history", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    await call(rollback, "/x", { cookie, params: { id: sessionId }, body: { stepId: "s0003" } });
    fake.script([{ text: "ok" }]);
    await sendChat(cookie, sessionId, "continue");
    const seen = fake.requests.at(-1)!.body.messages.slice(1);
    expect(seen.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(seen[2].content).toMatch(/no recorded result/);
  });

  it("refuses bad step ids with clear messages", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    const missing = await call(rollback, "/x", { cookie, params: { id: sessionId }, body: { stepId: "s0099" } });
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toBe("There is no step s0099 in this session.");
    const malformed = await call(rollback, "/x", { cookie, params: { id: sessionId }, body: { stepId: "banana" } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.message).toBe('"banana" is not a step id. Step ids look like s0003 (see /steps).');
  });

  it("forks at a step: the fork has the history up to it, records its parent, and the original is untouched", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    const created = await call(fork, "/x", { cookie, params: { id: sessionId }, body: { stepId: "s0004", title: "Other path" } });
    expect(created.status).toBe(201);
    expect(created.json.session).toMatchObject({ title: "Other path", parentSessionId: sessionId, forkedFromStep: "s0004" });
    const forkId = created.json.session.id;
    const forkSteps = (await call(getSteps, "/x", { cookie, params: { id: forkId } })).json.steps;
    expect(forkSteps.map((step: { key: string }) => step.key)).toEqual(["s0001", "s0002", "s0003", "s0004"]);
    expect(forkSteps[2].parentStepId).toBe(forkSteps[1].id);
    const originalSteps = (await call(getSteps, "/x", { cookie, params: { id: sessionId } })).json.steps;
    expect(originalSteps).toHaveLength(6);

    fake.script([{ text: "From the fork." }]);
    await sendChat(cookie, forkId, "fork question");
    const seen = fake.requests.at(-1)!.body.messages.slice(1);
    expect(seen.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect((await call(getSteps, "/x", { cookie, params: { id: sessionId } })).json.steps).toHaveLength(6);
  });

  it("supports /steps, /rollback and /fork as chat commands without calling the model", async () => {
    const { cookie } = await createUser();
    const sessionId = await twoExchanges(cookie);
    const requestsBefore = fake.requests.length;
    const steps = await sendChat(cookie, sessionId, "/steps");
    expect(steps.text).toContain("| s0003 | tool calculator | completed");
    const forked = await sendChat(cookie, sessionId, "/fork s0002 Branch B");
    const open = forked.chunks.find((chunk) => chunk.type === "data-session");
    expect(open?.data).toMatchObject({ action: "open" });
    // /steps and /fork were stored as steps s0006 and s0007, so the rollback removes them too.
    const rolled = await sendChat(cookie, sessionId, "/rollback s0005");
    expect(rolled.text).toBe("Rolled back: removed 4 steps from s0005 on.");
    const unknown = await sendChat(cookie, sessionId, "/frobnicate");
    expect(unknown.text).toMatch(/^Unknown command \/frobnicate/);
    expect(fake.requests.length).toBe(requestsBefore);
    // Command replies survive a reload, and the model never sees them.
    const loaded = await call(getSession, "/x", { cookie, params: { id: sessionId } });
    const texts = loaded.json.messages.map((message: { role: string; parts: { type: string; text?: string }[] }) => `${message.role}: ${message.parts.find((part) => part.type === "text")?.text ?? ""}`);
    expect(texts.slice(-4)).toEqual(["user: /rollback s0005", "assistant: Rolled back: removed 4 steps from s0005 on.", "user: /frobnicate", expect.stringMatching(/^assistant: Unknown command/)]);
    fake.script([{ text: "ok" }]);
    await sendChat(cookie, sessionId, "go on");
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).not.toContain("frobnicate");
  });

  it("renames and deletes sessions, scoped to the owner", async () => {
    const { cookie } = await createUser();
    const other = await createUser();
    const sessionId = await newSession(cookie);
    expect((await call(renameSessionRoute, "/x", { method: "PATCH", cookie, params: { id: sessionId }, body: { title: "Renamed" } })).json.session.title).toBe("Renamed");
    expect((await call(renameSessionRoute, "/x", { method: "PATCH", cookie: other.cookie, params: { id: sessionId }, body: { title: "Mine" } })).status).toBe(404);
    expect((await call(renameSessionRoute, "/x", { method: "PATCH", cookie, params: { id: sessionId }, body: { title: " " } })).json.error.message).toBe("The title cannot be empty.");
    expect((await call(deleteSessionRoute, "/x", { method: "DELETE", cookie: other.cookie, params: { id: sessionId } })).status).toBe(404);
    expect((await call(deleteSessionRoute, "/x", { method: "DELETE", cookie, params: { id: sessionId } })).status).toBe(204);
    expect((await call(getSession, "/x", { cookie, params: { id: sessionId } })).status).toBe(404);
  });

  it("keeps forks of another user's session impossible", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const sessionId = await twoExchanges(alice.cookie);
    expect((await call(fork, "/x", { cookie: bob.cookie, params: { id: sessionId }, body: { stepId: "s0001" } })).status).toBe(404);
    expect((await call(rollback, "/x", { cookie: bob.cookie, params: { id: sessionId }, body: { stepId: "s0001" } })).status).toBe(404);
  });
});

describe("crash recovery", () => {
  /** What a kill -9 during a tool call leaves behind: session RUNNING with a dead lease, tool step running. */
  async function crashedSession(userId: string) {
    const session = await db().chatSession.create({
      data: { userId, title: "Crashed", status: "RUNNING", runnerId: "dead-process", leaseExpiresAt: new Date(Date.now() - 60_000), nextSeq: 4 },
    });
    await db().step.create({ data: { sessionId: session.id, userId, seq: 1, type: "USER_INPUT", name: "user", status: "COMPLETED", input: { text: "delete the temp files" }, endedAt: new Date() } });
    const model = await db().step.create({
      data: {
        sessionId: session.id,
        userId,
        seq: 2,
        type: "MODEL_CALL",
        name: "model",
        status: "COMPLETED",
        output: { text: "", toolCalls: [{ id: "call_crash", name: "calculator", arguments: { expression: "1+1" } }] },
        endedAt: new Date(),
        provider: "openai",
        model: "gpt-4o-mini",
      },
    });
    await db().step.create({
      data: { sessionId: session.id, userId, seq: 3, type: "TOOL_CALL", name: "calculator", status: "RUNNING", parentStepId: model.id, input: { toolCallId: "call_crash", name: "calculator", arguments: { expression: "1+1" } } },
    });
    return session.id;
  }

  it("shows an interrupted run as such and resumes it without silently re-running the interrupted tool", async () => {
    const { user, cookie } = await createUser();
    const sessionId = await crashedSession(user.id);
    const loaded = await call(getSession, "/x", { cookie, params: { id: sessionId } });
    expect(loaded.json.session).toMatchObject({ status: "failed", statusReason: "interrupted", interrupted: true, live: false });
    const toolStep = await db().step.findFirstOrThrow({ where: { sessionId, seq: 3 } });
    expect(toolStep.status).toBe("FAILED");

    fake.script([{ text: "I checked: the earlier step did not finish, so I will redo it carefully." }]);
    const headers = new Headers({ host: "localhost:3000", origin: ORIGIN, cookie, "content-type": "application/json" });
    const response = await resume(new Request(`${ORIGIN}/api/sessions/${sessionId}/resume`, { method: "POST", headers, body: "{}" }), {
      params: Promise.resolve({ id: sessionId }) as Promise<never>,
    });
    const { text } = await readUiStream(response);
    expect(text).toMatch(/did not finish/);
    await waitForRun(sessionId);

    const seen = fake.requests[0]!.body.messages.slice(1);
    expect(seen.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(seen[2]).toEqual({ role: "tool", tool_call_id: "call_crash", content: `ERROR: ${INTERRUPTED_TOOL_OBSERVATION}` });
    expect(seen[3].content).toBe(RESUME_INSTRUCTION);
    // The interrupted calculator call was not executed again: no new tool step was written.
    expect(await db().step.count({ where: { sessionId, type: "TOOL_CALL" } })).toBe(1);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("SUCCESS");
  });

  it("does not treat a run with a live lease in another process as interrupted", async () => {
    const { user, cookie } = await createUser();
    const session = await db().chatSession.create({
      data: { userId: user.id, title: "Elsewhere", status: "RUNNING", runnerId: "other-process", leaseExpiresAt: new Date(Date.now() + 60_000) },
    });
    const loaded = await call(getSession, "/x", { cookie, params: { id: session.id } });
    expect(loaded.json.session).toMatchObject({ status: "running", interrupted: false });
  });

  it("refuses to resume a session that was not interrupted", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const headers = new Headers({ host: "localhost:3000", origin: ORIGIN, cookie, "content-type": "application/json" });
    const response = await resume(new Request(`${ORIGIN}/x`, { method: "POST", headers, body: "{}" }), { params: Promise.resolve({ id: sessionId }) as Promise<never> });
    expect(response.status).toBe(409);
  });
});

describe("Anthropic provider", () => {
  it("sends the system prompt as a cached top-level field and maps tool_use / tool_result", async () => {
    process.env.XCLAW_PROVIDERS = "anthropic";
    resetEnvironment();
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "3^2" } }], usage: { inputTokens: 120, outputTokens: 15 } }, { text: "Nine." }]);
    const { text, tools } = await sendChat(cookie, sessionId, "3 squared?");
    expect(text).toBe("Nine.");
    expect((tools[1]!.output as { text: string }).text).toBe("3^2 = 9");
    const first = fake.requests[0]!;
    expect(first.api).toBe("anthropic");
    expect(first.body.system[0]).toMatchObject({ type: "text", cache_control: { type: "ephemeral" } });
    expect(first.body.system[0].text).toContain("You are xclaw");
    expect(first.body.tools.map((tool: { name: string }) => tool.name)).toEqual(expect.arrayContaining(["calculator", "current_time", "write_file"]));
    const second = fake.requests[1]!.body.messages;
    expect(second[1].content[0]).toMatchObject({ type: "tool_use", name: "calculator", input: { expression: "3^2" } });
    expect(second[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: second[1].content[0].id, is_error: false });
    const model = await db().step.findFirstOrThrow({ where: { sessionId, type: "MODEL_CALL" }, orderBy: { seq: "asc" } });
    expect(model).toMatchObject({ provider: "anthropic", inputTokens: 120, outputTokens: 15 });

    // The same history replays correctly through the other provider.
    process.env.XCLAW_PROVIDERS = "openai";
    resetEnvironment();
    fake.script([{ text: "Still nine." }]);
    await sendChat(cookie, sessionId, "and again?");
    const replay = fake.requests.at(-1)!.body.messages.slice(1);
    expect(replay.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
  });
});
