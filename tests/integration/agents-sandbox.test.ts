import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgentProfile, ZAgentProfileInput } from "@/lib/agents/profiles";
import { resetEnvironment } from "@/lib/config/environment";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { findBubblewrap } from "@/lib/sandbox/bubblewrap-sandbox";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import type { TFakeReply, TRecordedRequest } from "../fake-llm/types";
import { contract, lastMessageOf, startAgentsRunner, tasksOf, toolOutputJson, workerOf } from "../support/agents";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";

// Slow by nature (bubblewrap commands), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Workers and their folders with the real sandbox: a worker's deliveries stay in its task's folder
 * whatever path it tries, and its time limit kills the command it is running. Writes and commands
 * are allowed without approval in this file (its own xclaw.yaml), so the worker acts on its own.
 */
const available = findBubblewrap() !== undefined || Boolean(process.env.CI);
let fake: TFakeLlm;
let runner: TJobRunner;
let directory: string;
const saved = process.env.XCLAW_CONFIG;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-agents-sandbox-"));
  await writeFile(path.join(directory, "xclaw.yaml"), "approvals: { write: allow, execute: allow }\nsandbox: { mode: bubblewrap, timeoutSeconds: 60 }\n");
  process.env.XCLAW_CONFIG = path.join(directory, "xclaw.yaml");
  process.env.XCLAW_DATA_DIR = path.join(directory, "data");
  resetEnvironment();
  fake = await startFakeLlm();
  runner = await startAgentsRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await fake.close();
  if (saved === undefined) delete process.env.XCLAW_CONFIG;
  else process.env.XCLAW_CONFIG = saved;
  delete process.env.XCLAW_DATA_DIR;
  resetEnvironment();
  await rm(directory, { recursive: true, force: true });
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

/** The main agent delegates `task` to `agent`; the worker makes `calls` one after another, then replies `final`. */
function scriptWorker(agent: string, task: string, calls: { name: string; arguments: Record<string, unknown> }[], final: (request: TRecordedRequest) => TFakeReply) {
  fake.script((request) => {
    const worker = workerOf(request);
    const tools = request.body.messages.filter((message: { role: string }) => message.role === "tool").length;
    if (!worker) return lastMessageOf(request).role === "tool" ? { text: "done" } : { toolCalls: [{ name: "delegate", arguments: { agent, task } }] };
    return tools < calls.length ? { toolCalls: [calls[tools]!] } : final(request);
  });
}

function toolOutputs(request: TRecordedRequest): string[] {
  return request.body.messages.filter((message: { role: string }) => message.role === "tool").map((message: { content: string }) => message.content);
}

describe("deliveries", () => {
  it("land in shared/<task>/ and become the only pointers; every way out of the folder is refused", async () => {
    const { user, cookie } = await createUser();
    const root = path.join(directory, "data", "workspaces", user.id);
    await mkdir(path.join(root, "shared", "othertask1"), { recursive: true });
    await writeFile(path.join(root, "private.md"), "owner's notes");
    const sessionId = await newSession(cookie);
    let lastWorkerRequest: TRecordedRequest | undefined;
    scriptWorker(
      "writer",
      "Write the report.",
      [
        { name: "deliver", arguments: { path: "report.md", content: "# Report" } },
        { name: "deliver", arguments: { path: "../../private.md", content: "overwritten" } },
        { name: "deliver", arguments: { path: path.join(root, "private.md"), content: "overwritten" } },
        { name: "deliver", arguments: { path: "shared/othertask1/x.md", content: "intruder" } },
        { name: "write_file", arguments: { path: "../../../private.md", content: "overwritten" } },
        { name: "view_file", arguments: { path: "../../../private.md" } },
      ],
      (request) => {
        lastWorkerRequest = request;
        const folder = /land in (shared\/[a-z0-9]+)\//.exec(request.body.messages[0].content)![1];
        return { text: contract({ done: true }, { report: `${folder}/report.md`, made_up: `${folder}/secret.md` }) };
      },
    );
    await sendChat(cookie, sessionId, "get a report");
    const [task] = await tasksOf(sessionId);
    const pointer = `shared/${task!.taskKey}/report.md`;
    const outputs = toolOutputs(lastWorkerRequest!);
    expect(outputs[0]).toBe(`delivered: ${pointer}`);
    expect(outputs[1]).toMatch(/outside this task's delivery folder/);
    expect(outputs[2]).toMatch(/outside this task's delivery folder/);
    expect(outputs[3]).toMatch(/another task's folder/);
    expect(outputs[4]).toMatch(/outside your workspace/);
    expect(outputs[5]).toMatch(/outside your workspace/);
    expect(await readFile(path.join(root, "private.md"), "utf8")).toBe("owner's notes");
    await expect(stat(path.join(root, "shared", "othertask1", "x.md"))).rejects.toThrow();
    expect(await readFile(path.join(root, pointer), "utf8")).toBe("# Report");
    // The worker's reply named one real and one invented file: only the delivered one survives.
    const result = await toolOutputJson(sessionId, "delegate");
    expect(result.artifact_pointers).toEqual({ report: pointer });
    expect(result.error).toContain(`shared/${task!.taskKey}/secret.md`);
    expect(task!.artifacts).toEqual([pointer]);
  });
});

describe.skipIf(!available)("time limits", () => {
  it("a worker's time limit stops its model call and kills the command it runs", async () => {
    const { user, cookie } = await createUser();
    await createAgentProfile({
      owner: user.id,
      input: ZAgentProfileInput.parse({ name: "sleeper", description: "sleeps", systemPrompt: "You are sleeper, a test agent.", allowedTools: ["shell"], timeoutSeconds: 2 }),
    });
    const sessionId = await newSession(cookie);
    const marker = `sleep 31.${Date.now() % 100_000}`;
    let commandStarted = false;
    fake.script((request) => {
      const worker = workerOf(request);
      if (!worker) return lastMessageOf(request).role === "tool" ? { text: "it timed out" } : { toolCalls: [{ name: "delegate", arguments: { agent: "sleeper", task: "sleep" } }] };
      commandStarted = true;
      return { toolCalls: [{ name: "shell", arguments: { command: `${marker}; echo late > late.txt` } }] };
    });
    await sendChat(cookie, sessionId, "go");
    expect(commandStarted).toBe(true);
    const [task] = await tasksOf(sessionId);
    expect(task!.status).toBe("TIMED_OUT");
    expect((await toolOutputJson(sessionId, "delegate")).status).toBe("timeout");
    // The command was killed with the worker, not left running: no process of it is left on the host.
    const processes = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(processes).not.toContain(marker);
    const shellStep = await db().step.findFirstOrThrow({ where: { sessionId: task!.sessionId!, name: "shell" } });
    expect(shellStep.status).not.toBe("RUNNING");
    await expect(stat(path.join(directory, "data", "workspaces", user.id, "agents", "sleeper", task!.taskKey, "late.txt"))).rejects.toThrow();
  });
});
