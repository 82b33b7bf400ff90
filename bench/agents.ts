/**
 * Multi-agent on each database, measured in one run (not in CI; `npm run bench:agents`):
 *
 * - fan-out: a debate of three scripted workers that each take 1 s, against one worker alone
 *   (delegate), both through the whole path — the parent's tool, one job per worker on the
 *   embedded runner, the worker's run, its result row, the parent waking up. The ratio of the two
 *   tool calls' durations is the cost of running three instead of one; target ≤ 1.3×.
 * - the latency a worker run gets from going through the jobs layer: sending its event (with the
 *   task row) until its model request arrives, against starting the same run directly in-process
 *   (createSession + startRun) until its model request arrives. Reported as p50/p99 of both and of
 *   the difference of the medians.
 *
 *   npm run bench:agents                 embedded PGlite, and PostgreSQL when BENCH_POSTGRES_URL
 *   npm run bench:agents -- 9 60         fan-out repetitions, latency samples   or TEST_DATABASE_URL is set
 */
import { randomBytes } from "node:crypto";
import { createTasks, newTaskKey } from "../lib/agents/task-store";
import { dispatchWorkers } from "../lib/agents/worker-event";
import { db } from "../lib/db/client";
import { installApp } from "../lib/app/install-app";
import { jobCatalog } from "../lib/app/job-catalog";
import { resetEnvironment } from "../lib/config/environment";
import { createJobRunner } from "../lib/jobs/job-runner";
import { startRun } from "../lib/runs/start-run";
import { waitForRun } from "../lib/runs/local-runs";
import { createSession } from "../lib/sessions/sessions";
import { startFakeLlm } from "../tests/fake-llm/server";
import type { TRecordedRequest } from "../tests/fake-llm/types";
import { onEachDatabase, percentile } from "./support";

process.env.XCLAW_LOG_SILENT ??= "1";
// The capability list and the job catalog, as the app process installs them (lib/app).
installApp();
const fanOutRounds = Number(process.argv[2] ?? 5);
const latencySamples = Number(process.argv[3] ?? 40);
const WORKER_MS = 1_000;

const fake = await startFakeLlm();
process.env.OPENAI_BASE_URL = fake.openaiBaseUrl;
process.env.OPENAI_API_KEY = "bench";
process.env.XCLAW_PROVIDERS = "openai";
resetEnvironment();

function systemOf(request: TRecordedRequest): string {
  const first = request.body.messages?.[0];
  return first?.role === "system" ? String(first.content) : "";
}
const isWorker = (request: TRecordedRequest) => systemOf(request).includes("## How you work");
const firstUser = (request: TRecordedRequest) => String(request.body.messages.find((message: { role: string }) => message.role === "user")?.content ?? "");

/** Model requests that carry a tag, as they arrive (for the latency samples). */
const arrivals = new Map<string, (at: number) => void>();
let parentPlan: { name: string; arguments: Record<string, unknown> } | undefined;

fake.script(async (request) => {
  const tag = /^\[bench ([0-9a-f]+)\]/.exec(firstUser(request))?.[1];
  if (tag && arrivals.has(tag)) {
    arrivals.get(tag)!(performance.now());
    return { text: JSON.stringify({ status: "success", summary_data: { tag }, artifact_pointers: {} }) };
  }
  if (isWorker(request)) return { text: JSON.stringify({ status: "success", summary_data: { view: "ok" }, artifact_pointers: {} }), delayMs: WORKER_MS };
  const last = request.body.messages.at(-1);
  return last.role === "tool" ? { text: "done" } : { toolCalls: [parentPlan!] };
});

async function newUser(): Promise<string> {
  const user = await db().user.create({ data: { email: `bench-${randomBytes(4).toString("hex")}@example.com`, passwordHash: "x" } });
  return user.id;
}

/** Runs one parent turn whose model makes `plan`, and returns the tool call's duration from its step. */
async function parentToolMs(userId: string, plan: { name: string; arguments: Record<string, unknown> }): Promise<number> {
  parentPlan = plan;
  const session = await createSession({ userId });
  await startRun({ session: { id: session.id, userId }, input: { kind: "message", text: "go" }, trigger: "web" });
  await waitForRun(session.id);
  const step = await db().step.findFirstOrThrow({ where: { sessionId: session.id, type: "TOOL_CALL", name: plan.name } });
  return step.endedAt!.getTime() - step.startedAt.getTime();
}

const median = (values: number[]) => percentile(values, 50);

async function measure(label: string) {
  const runner = createJobRunner({ jobs: jobCatalog, cron: false, concurrency: 20 });
  await runner.start();
  const userId = await newUser();
  const fmt = (value: number) => value.toFixed(1);
  try {
    // Warm up the runner, the query plans and the provider client.
    await parentToolMs(userId, { name: "delegate", arguments: { agent: "coder", task: "warm up" } });

    const single: number[] = [];
    const debate: number[] = [];
    for (let round = 0; round < fanOutRounds; round++) {
      single.push(await parentToolMs(userId, { name: "delegate", arguments: { agent: "coder", task: `alone ${round}` } }));
      debate.push(await parentToolMs(userId, { name: "debate", arguments: { question: `three ${round}`, agents: ["coder", "skeptic", "optimizer"] } }));
    }

    // Latency of starting a worker run: through the jobs layer, and directly.
    const viaJobs: number[] = [];
    const direct: number[] = [];
    const parent = await createSession({ userId });
    const parentStep = await db().step.create({ data: { sessionId: parent.id, userId, seq: 1, type: "TOOL_CALL", name: "delegate", status: "RUNNING", input: { toolCallId: "bench", name: "delegate", arguments: {} } } });
    for (let sample = 0; sample < latencySamples; sample++) {
      const tag = randomBytes(6).toString("hex");
      let arrived = new Promise<number>((resolve) => arrivals.set(tag, resolve));
      let started = performance.now();
      const [task] = await createTasks({
        userId,
        parentSessionId: parent.id,
        parentStepId: parentStep.id,
        parentRunId: null,
        toolCallId: "bench",
        kind: "delegate",
        tasks: [{ index: sample, agent: "coder", taskKey: newTaskKey(), task: `[bench ${tag}] go`, timeoutMs: 60_000 }],
      }).then((rows) => rows.filter((row) => row.index === sample));
      await dispatchWorkers([task!], { depth: 0, approvals: "ask" });
      viaJobs.push((await arrived) - started);
      arrivals.delete(tag);

      const directTag = randomBytes(6).toString("hex");
      arrived = new Promise<number>((resolve) => arrivals.set(directTag, resolve));
      started = performance.now();
      const session = await createSession({ userId, trigger: "agent", parentSessionId: parent.id });
      await startRun({ session: { id: session.id, userId }, input: { kind: "prompt", text: `[bench ${directTag}] go` }, trigger: "agent" });
      direct.push((await arrived) - started);
      arrivals.delete(directTag);
      await waitForRun(session.id);
    }
    // Let the last workers' jobs finish before the runner stops.
    while ((await db().agentTask.count({ where: { userId, status: { in: ["QUEUED", "RUNNING"] } } })) > 0) await new Promise((resolve) => setTimeout(resolve, 50));

    const ratio = median(debate) / median(single);
    const added = median(viaJobs) - median(direct);
    console.log(`\nagents bench — ${label}`);
    console.log(`  one worker (delegate)     median ${fmt(median(single))} ms   (${fanOutRounds} rounds; the worker's model takes ${WORKER_MS} ms)`);
    console.log(`  three workers (debate)    median ${fmt(median(debate))} ms   ratio ${ratio.toFixed(2)}x   (target ≤ 1.30x)`);
    console.log(`  worker run start, via jobs  p50 ${fmt(percentile(viaJobs, 50))} ms  p99 ${fmt(percentile(viaJobs, 99))} ms   (event + job claim + session + run, to its model request)`);
    console.log(`  worker run start, direct    p50 ${fmt(percentile(direct, 50))} ms  p99 ${fmt(percentile(direct, 99))} ms   (createSession + startRun)`);
    console.log(`  added by the jobs layer     p50 ${fmt(added)} ms  p99 ${fmt(percentile(viaJobs, 99) - percentile(direct, 99))} ms   (${latencySamples} samples)`);
    return { ratio, added };
  } finally {
    await runner.stop({ graceMs: 2_000 });
  }
}

const results = await onEachDatabase("xclaw_bench_agents", (label) => measure(label));

await fake.close();
const pass = Object.values(results).every((result) => result.ratio <= 1.3);
console.log(`\n  target (debate ≤ 1.3× one worker) ${pass ? "met" : "NOT met"}`);
process.exit(0);
