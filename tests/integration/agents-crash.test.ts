import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { POST as resumeRoute } from "@/app/api/sessions/[id]/resume/route";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { contract, lastMessageOf, startAgentsRunner, systemOf, tasksOf, toolOutputJson, workerOf } from "../support/agents";
import { clearProviderEnvironment, newSession, useFakeProvider } from "../support/chat";
import { createUser, ORIGIN } from "../support/http";
import { waitUntil } from "../support/jobs";
import { readUiStream } from "../support/ui-stream";

// Slow by nature (processes killed and restarted), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * kill -9 during a debate. A separate process runs the parent run and the workers' jobs; two
 * workers finish, the third is mid-answer when the process is killed. After the parent is resumed
 * in another process, its model collects the debate with agent_results: the finished workers are
 * not run again (their model calls are counted on the fake), the third is resumed by its job and
 * completes, and the debate is not started over.
 */
let fake: TFakeLlm;
let runner: TJobRunner | undefined;
let child: ChildProcess | undefined;
let directory: string;

beforeAll(async () => {
  fake = await startFakeLlm();
  useFakeProvider(fake);
  directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-agents-crash-"));
  await writeFile(path.join(directory, "xclaw.yaml"), "runs: { leaseSeconds: 2, heartbeatSeconds: 0.5 }\n");
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    // Gone before the database is dropped (tests/support/database-setup.ts), not still connected to it.
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  await runner?.stop({ graceMs: 1_000 });
  await fake.close();
  clearProviderEnvironment();
  await rm(directory, { recursive: true, force: true });
});

function spawnAppProcess(env: Record<string, string>): { child: ChildProcess; ready: Promise<void>; exited: Promise<unknown>; output: () => string } {
  const root = path.resolve(import.meta.dirname, "../..");
  const process_ = spawn(process.execPath, ["--import", "tsx", path.join(root, "tests/support/agents-process.ts")], {
    cwd: root,
    env: {
      ...process.env,
      XCLAW_LOG_SILENT: "1",
      XCLAW_CONFIG: path.join(directory, "xclaw.yaml"),
      XCLAW_DATA_DIR: path.join(directory, "data"),
      ...(process.env.XCLAW_TEST_DATABASE === "pglite" ? { XCLAW_EMBEDDED_DATABASE_URL: process.env.DATABASE_URL! } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    process_.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("agents-process ready")) resolve();
    });
    process_.on("exit", (code) => reject(new Error(`the app process exited with ${code} before it was ready:\n${output}`)));
  });
  process_.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => process_.on("exit", resolve));
  return { child: process_, ready, exited, output: () => output };
}

it("kill -9 during a debate, then resume: finished workers are not re-run, the rest complete", async () => {
  const { user, cookie } = await createUser();
  const sessionId = await newSession(cookie);
  const question = "Redis or SQLite for 100k sessions on one machine?";
  let killed = false;
  fake.script((request) => {
    const agent = workerOf(request);
    if (agent === "optimizer") return killed ? { text: contract({ pick: "redis", reason: "latency" }) } : { hang: true };
    if (agent) return { text: contract({ pick: agent === "coder" ? "redis" : "sqlite" }) };
    const last = lastMessageOf(request);
    if (last.role !== "tool") {
      // Before the crash: start the debate. After it: collect the interrupted debate's workers.
      const resumed = systemOf(request).includes("## Workers of interrupted calls");
      const callId = /call_id "([^"]+)"/.exec(systemOf(request))?.[1];
      return resumed ? { toolCalls: [{ name: "agent_results", arguments: { call_id: callId } }] } : { toolCalls: [{ name: "debate", arguments: { question, agents: ["coder", "skeptic", "optimizer"] } }] };
    }
    return { text: "Two of three say Redis." };
  });

  const app = spawnAppProcess({ AGENTS_SESSION_ID: sessionId, AGENTS_USER_ID: user.id, AGENTS_MESSAGE: "Debate Redis vs SQLite" });
  child = app.child;
  await app.ready;
  await waitUntil(async () => {
    const tasks = await tasksOf(sessionId);
    return tasks.filter((task) => task.status === "COMPLETED").length === 2 && fake.requests.some((request) => workerOf(request) === "optimizer");
  }, "two finished workers and the third one mid-answer", 30_000);
  app.child.kill("SIGKILL");
  await app.exited;
  killed = true;
  const before = await tasksOf(sessionId);
  expect(before.map((task) => [task.agent, task.status])).toEqual([
    ["coder", "COMPLETED"],
    ["skeptic", "COMPLETED"],
    ["optimizer", "RUNNING"],
  ]);

  // Another process: its job runner takes the optimizer's job over once the dead one's lease has
  // expired, and the owner resumes the parent once its run lease has expired.
  runner = await startAgentsRunner({ leaseMs: 1_500 });
  await waitUntil(async () => {
    const parent = await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } });
    return parent.leaseExpiresAt !== null && parent.leaseExpiresAt.getTime() < Date.now();
  }, "the parent's lease to expire");
  const resumed = await resumeRoute(
    new Request(`${ORIGIN}/api/sessions/${sessionId}/resume`, { method: "POST", headers: { host: "localhost:3000", origin: ORIGIN, cookie } }),
    { params: Promise.resolve({ id: sessionId }) as Promise<never> },
  );
  expect(resumed.status).toBe(200);
  const stream = await readUiStream(resumed);
  expect(stream.text).toContain("Two of three say Redis.");

  // The finished workers ran once; the interrupted one twice (its first answer was cut off).
  const calls = (agent: string) => fake.requests.filter((request) => workerOf(request) === agent).length;
  expect([calls("coder"), calls("skeptic"), calls("optimizer")]).toEqual([1, 1, 2]);
  const after = await tasksOf(sessionId);
  expect(after).toHaveLength(3);
  expect(after.map((task) => [task.agent, task.status])).toEqual([
    ["coder", "COMPLETED"],
    ["skeptic", "COMPLETED"],
    ["optimizer", "COMPLETED"],
  ]);
  // The same three sessions: nothing was started over, and the debate was not called again.
  expect(after.map((task) => task.sessionId)).toEqual(before.map((task) => task.sessionId));
  expect(await db().step.count({ where: { sessionId, name: "debate" } })).toBe(1);
  const collected = await toolOutputJson(sessionId, "agent_results");
  expect(collected.results.map((result: { agent: string; status: string }) => [result.agent, result.status])).toEqual([
    ["coder", "success"],
    ["skeptic", "success"],
    ["optimizer", "success"],
  ]);
  expect(collected.results[2].summary).toEqual({ pick: "redis", reason: "latency" });
  // The optimizer's session was resumed from its stored steps, not replaced.
  const optimizer = after[2]!;
  expect(await db().step.count({ where: { sessionId: optimizer.sessionId!, type: "SYSTEM_NOTE", name: "resume" } })).toBe(1);
});
