import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as chatBang } from "@/app/api/chat/route";
import { GET as listSessionsRoute } from "@/app/api/sessions/route";
import { GET as getSession } from "@/app/api/sessions/[id]/route";
import type { TAgentEvent } from "@/lib/agent/agent-types";
import { assembleTools, type TToolProvider } from "@/lib/capabilities/tool-provider";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { localRunCount, waitForRun } from "@/lib/runs/local-runs";
import { startRun } from "@/lib/runs/start-run";
import { createSession } from "@/lib/sessions/sessions";
import { finishStep, recordStep } from "@/lib/sessions/steps";
import { defineTool, ToolRegistry, type TChildRunResult } from "@/lib/tools/registry";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";
import { readUiStream } from "../support/ui-stream";

/**
 * The run core's seams, through real runs on a real database with the scripted model: hooks,
 * subscribers, tool context (progress, child runs), limits, triggers, and storing what PostgreSQL
 * cannot hold as such.
 */
let fake: TFakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

async function collect(follow: AsyncIterable<unknown>) {
  const events: TAgentEvent[] = [];
  for await (const event of follow) events.push(event as TAgentEvent);
  return events;
}

describe("run core", () => {
  it("lets a prepareStep hook change the system prompt and messages before every model call", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "1+1" } }] }, { text: "done" }]);
    const seen: number[] = [];
    const run = await startRun({
      session: { id: session.id, userId: user.id },
      input: { kind: "message", text: "add" },
      prepareStep: async ({ iteration, system, messages }) => {
        seen.push(iteration);
        return { system: `${system}\n\nRECALLED: the user likes tea (iteration ${iteration})`, messages: [...messages] };
      },
    });
    await collect(run.follow());
    expect(seen).toEqual([1, 2]);
    expect(fake.requests[0]!.body.messages[0].content).toContain("RECALLED: the user likes tea (iteration 1)");
    expect(fake.requests[1]!.body.messages[0].content).toContain("(iteration 2)");
    // The stable prompt stays first, so providers can cache it.
    expect(fake.requests[1]!.body.messages[0].content.startsWith("You are xclaw")).toBe(true);
  });

  it("sends every event to each subscriber, and a subscriber that throws does not end the run", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ text: "hello" }]);
    const received: string[] = [];
    const run = await startRun({
      session: { id: session.id, userId: user.id },
      input: { kind: "message", text: "hi" },
      subscribers: [
        () => {
          throw new Error("broken metrics hook");
        },
        (event) => received.push(event.type),
      ],
    });
    const events = await collect(run.follow());
    expect(received).toEqual(expect.arrayContaining(["model-start", "text-delta", "model-end"]));
    expect(events.at(-1)).toMatchObject({ type: "run-end", outcome: { status: "completed", text: "hello" } });
  });

  it("streams a tool's progress to its card, and gives the tool its own step id", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    let stepIdSeen = "";
    const slow = defineTool({
      name: "long_task",
      description: "works for a while",
      input: z.object({}),
      risk: "read",
      async execute(_input, context) {
        stepIdSeen = context.stepId;
        context.progress({ text: "half way", fraction: 0.5 });
        context.progress({ text: "almost", fraction: 0.9 });
        return "finished";
      },
    });
    fake.script([{ toolCalls: [{ name: "long_task", arguments: {} }] }, { text: "ok" }]);
    const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "go" }, tools: new ToolRegistry().register(slow) });
    const events = await collect(run.follow());
    const progress = events.filter((event) => event.type === "tool-progress");
    expect(progress.map((event) => event.type === "tool-progress" && event.progress.text)).toEqual(["half way", "almost"]);
    const toolStep = await db().step.findFirstOrThrow({ where: { sessionId: session.id, type: "TOOL_CALL" } });
    expect(stepIdSeen).toBe(toolStep.id);
  });

  it("runs a child run in its own session under the parent, and lists both with trigger and parent", async () => {
    const { user, cookie } = await createUser();
    const parent = await createSession({ userId: user.id });
    let child: TChildRunResult | undefined;
    const delegate = defineTool({
      name: "ask_helper",
      description: "asks a helper",
      input: z.object({ task: z.string() }),
      risk: "read",
      async execute({ task }, context) {
        child = await context.startChildRun!({ task, title: "Helper" });
        return `helper said: ${child.text}`;
      },
    });
    fake.script((request) => {
      const last = request.body.messages.at(-1);
      if (last.role === "user" && last.content === "count the files") return { text: "There are 3 files." };
      if (last.role === "tool") return { text: "The helper counted 3." };
      return { toolCalls: [{ name: "ask_helper", arguments: { task: "count the files" } }] };
    });
    const run = await startRun({ session: { id: parent.id, userId: user.id }, input: { kind: "message", text: "ask the helper" }, tools: new ToolRegistry().register(delegate) });
    await collect(run.follow());
    expect(child).toMatchObject({ status: "completed", text: "There are 3 files." });
    const listed = (await call(listSessionsRoute, "/api/sessions", { cookie })).json.sessions;
    const childRow = listed.find((session: { id: string }) => session.id === child!.sessionId);
    expect(childRow).toMatchObject({ trigger: "agent", parentSessionId: parent.id, title: "Helper", status: "success" });
    expect(listed.find((session: { id: string }) => session.id === parent.id)).toMatchObject({ trigger: "web", parentSessionId: null });
    // The worker's first user message is its task, verbatim.
    const childView = (await call(getSession, "/x", { cookie, params: { id: child!.sessionId } })).json;
    expect(childView.messages[0].parts[0].text).toBe("count the files");
  });

  it("denies (and records) a call that needs approval when the run has nobody to ask", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id, trigger: "job", title: "Nightly check" });
    fake.script([{ toolCalls: [{ name: "shell", arguments: { command: "rm -rf /workspace/*" } }] }, { text: "I could not run the command." }]);
    const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "prompt", text: "clean up" }, trigger: "job", limits: { approvals: "deny" } });
    const events = await collect(run.follow());
    expect(events.some((event) => event.type === "approval-request")).toBe(false);
    expect(await db().approval.count({ where: { sessionId: session.id } })).toBe(0);
    const toolStep = await db().step.findFirstOrThrow({ where: { sessionId: session.id, type: "TOOL_CALL" } });
    expect(toolStep.status).toBe("FAILED");
    expect(JSON.stringify(toolStep.output)).toMatch(/needs a person's approval, and this job run has nobody to ask/);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: session.id } })).status).toBe("SUCCESS");
  });

  it("offers only the allowed tools and stops at the step limit with the run's own notice", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ toolCalls: [{ name: "calculator", arguments: { expression: "1+1" } }] }, { toolCalls: [{ name: "calculator", arguments: { expression: "2+2" } }] }]);
    const run = await startRun({
      session: { id: session.id, userId: user.id },
      input: { kind: "prompt", text: "loop" },
      limits: { allowedTools: ["calculator", "current_time"], maxIterations: 2, iterationLimitNotice: "step limit reached, job stopped" },
    });
    const events = await collect(run.follow());
    expect(fake.requests[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort()).toEqual(["calculator", "current_time"]);
    expect(events.find((event) => event.type === "notice")).toMatchObject({ text: "step limit reached, job stopped" });
    expect(events.at(-1)).toMatchObject({ type: "run-end", outcome: { status: "max-iterations" } });
  });

  it("stops a run at its time limit and says so", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    fake.script([{ hang: true }]);
    const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "wait" }, limits: { timeoutMs: 300 } });
    const events = await collect(run.follow());
    expect(events.at(-1)).toMatchObject({ type: "run-end", outcome: { status: "stopped", reason: "timeout" } });
    const stored = await db().chatSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(stored).toMatchObject({ status: "FAILED", statusReason: "stopped at the time limit (0 s)", runnerId: null });
  });

  it("drops a run's live state when it ends", async () => {
    const { user } = await createUser();
    const before = localRunCount();
    for (let index = 0; index < 3; index++) {
      const session = await createSession({ userId: user.id });
      fake.script([{ text: `reply ${index}` }]);
      const run = await startRun({ session: { id: session.id, userId: user.id }, input: { kind: "message", text: "hi" } });
      await waitForRun(session.id);
      // A follower that arrives after the end still reads the whole run from its own reference.
      expect((await collect(run.follow())).at(-1)).toMatchObject({ type: "run-end" });
    }
    expect(localRunCount()).toBe(before);
  });
});

describe("tool providers", () => {
  const tool = (name: string) => defineTool({ name, description: name, input: z.object({}), risk: "read", execute: async () => name });

  it("refuses a duplicate tool name with a clear reason, namespaces plugin tools, and survives a provider that throws", () => {
    const providers: TToolProvider[] = [
      { id: "files", tools: () => [tool("read_file"), tool("list_dir")] },
      { id: "plugin evil", tools: () => [tool("read_file")] },
      { id: "plugin weather", namespace: "weather", tools: () => [tool("read_file"), tool("forecast")] },
      {
        id: "plugin broken",
        tools: () => {
          throw new Error("manifest missing");
        },
      },
    ];
    const { registry, problems } = assembleTools(providers, { userId: "u", sessionId: "s", config: getBehaviourConfig() });
    expect(registry.names()).toEqual(["read_file", "list_dir", "weather__read_file", "weather__forecast"]);
    expect(problems).toEqual([
      'The tool name "read_file" from plugin evil is already taken by files; the second one was not registered.',
      "The plugin broken tools are unavailable: manifest missing",
    ]);
  });
});

describe("storing what PostgreSQL cannot hold", () => {
  it("keeps a run going when a tool's output and the model's arguments contain NUL and lone surrogates", async () => {
    const { user, cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const binary = defineTool({ name: "binary_output", description: "", input: z.object({ label: z.string() }), risk: "read", execute: async () => "a\u0000b\ud800c" });
    fake.script([{ toolCalls: [{ name: "binary_output", arguments: { label: "x\u0000y" } }] }, { text: "read it" }]);
    const run = await startRun({ session: { id: sessionId, userId: user.id }, input: { kind: "message", text: "go" }, tools: new ToolRegistry().register(binary) });
    const events = await collect(run.follow());
    expect(events.at(-1)).toMatchObject({ type: "run-end", outcome: { status: "completed", text: "read it" } });
    const toolStep = await db().step.findFirstOrThrow({ where: { sessionId, type: "TOOL_CALL" } });
    expect(toolStep.status).toBe("COMPLETED");
    expect(JSON.stringify(toolStep.output)).toContain("a\uFFFDb\uFFFDc");
    expect(JSON.stringify(toolStep.input)).toContain("x\uFFFDy");
    const view = (await call(getSession, "/x", { cookie, params: { id: sessionId } })).json;
    expect(view.session.status).toBe("success");
  });

  it("answers a !command whose output contains NUL with its output, not a 500", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const response = await call(chatBang, "/api/chat", { cookie, body: { sessionId, text: "!printf 'a\\000b'" } });
    expect(response.status).toBe(200);
    expect(String(response.json)).toContain("a\\u0000b");
    const stored = await db().step.findFirstOrThrow({ where: { sessionId, type: "TOOL_CALL" } });
    expect(stored.status).toBe("COMPLETED");
    expect(JSON.stringify(stored.output)).toContain("a\uFFFDb");
  });

  it("closes a step as FAILED when its result cannot be stored at all, instead of leaving it running", async () => {
    const { user } = await createUser();
    const session = await createSession({ userId: user.id });
    const step = await recordStep({ sessionId: session.id, userId: user.id, type: "TOOL_CALL", name: "x", input: { toolCallId: "c", name: "x", arguments: {} } });
    // A BigInt cannot be serialised to JSON: the write fails for a reason that retrying cannot fix.
    await finishStep(step.id, { status: "COMPLETED", output: { value: 10n } as never });
    const stored = await db().step.findUniqueOrThrow({ where: { id: step.id } });
    expect(stored).toMatchObject({ status: "FAILED", error: "The result of this step could not be stored." });
    expect(stored.endedAt).not.toBeNull();
  });
});

describe("slash commands and bang commands through the web channel", () => {
  it("streams a !command as a tool card", async () => {
    const { cookie } = await createUser();
    const sessionId = await newSession(cookie);
    const { tools } = await sendChat(cookie, sessionId, "!echo hello");
    expect(tools.map((chunk) => chunk.type)).toEqual(["tool-input-available", "tool-output-available"]);
    expect(tools[1]!.output).toMatchObject({ isError: false, step: "s0001" });
    expect((tools[1]!.output as { text: string }).text).toContain("hello");
    void readUiStream;
  });
});

describe("run housekeeping jobs", () => {
  it("expires an undecided approval: the call is answered 'not run', the session is free, the next message continues", async () => {
    const { expirePendingApprovals } = await import("@/lib/runs/run-jobs");
    const { user, cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "shell", arguments: { command: "echo hi" } }] }]);
    await sendChat(cookie, sessionId, "run something");
    await waitForRun(sessionId);
    const approval = await db().approval.findFirstOrThrow({ where: { sessionId } });
    expect(await expirePendingApprovals({ now: new Date(approval.expiresAt.getTime() - 1_000) })).toBe(0);
    expect(await expirePendingApprovals({ now: new Date(approval.expiresAt.getTime() + 1_000) })).toBe(1);
    expect(await db().approval.findUniqueOrThrow({ where: { id: approval.id } })).toMatchObject({ status: "EXPIRED" });
    expect(await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({ status: "SUCCESS", statusReason: "the approval expired" });
    fake.script([{ text: "Understood." }]);
    expect((await sendChat(cookie, sessionId, "never mind")).text).toBe("Understood.");
    const seen = fake.requests.at(-1)!.body.messages.slice(1);
    expect(seen.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(seen[2].content).toMatch(/Not run: the approval expired/);
    void user;
  });

  it("marks a run whose process died as interrupted and deletes the event copies of ended runs", async () => {
    const { cleanFinishedRunState } = await import("@/lib/runs/run-jobs");
    const { user } = await createUser();
    const dead = await db().chatSession.create({ data: { userId: user.id, title: "dead", status: "RUNNING", runnerId: "gone", leaseExpiresAt: new Date(Date.now() - 60_000) } });
    const ended = await db().chatSession.create({ data: { userId: user.id, title: "ended", status: "SUCCESS", runId: "00000000-0000-4000-8000-00000000000a" } });
    await db().runEventBatch.create({ data: { runId: "00000000-0000-4000-8000-00000000000a", sessionId: ended.id, seq: 1, events: [], createdAt: new Date(Date.now() - 3_600_000) } });
    const result = await cleanFinishedRunState();
    expect(result.interrupted).toBeGreaterThanOrEqual(1);
    expect(result.batches).toBeGreaterThanOrEqual(1);
    expect(await db().chatSession.findUniqueOrThrow({ where: { id: dead.id } })).toMatchObject({ status: "FAILED", statusReason: "interrupted" });
    expect(await db().runEventBatch.count({ where: { sessionId: ended.id } })).toBe(0);
  });
});
