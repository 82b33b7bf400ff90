/**
 * Both job backends in one run: the embedded runner on each database, then a real Inngest server
 * (bench/jobs-inngest.ts; skipped with a message when ../shared/tools/inngest is missing):
 *
 * - latency from sending an event to its job's first step starting (p50/p99), runner in-process;
 * - throughput of 1,000 jobs of three steps each (sent one by one while the runner works; 200 on
 *   Inngest, sent in batches of 100);
 * - the wall time of a 10-way fan-out: a job's step.sendEvent of 10 events until all 10 jobs ran;
 * - the cost of one step.run (stores its result) and of a replayed, memoized step, against a
 *   bare call of the same function.
 *
 * Targets (ARCHITECTURE.md): send → first step p50 ≤ 50 ms on PostgreSQL; ≥ 100 three-step jobs/s.
 *
 *   npm run bench:jobs                         embedded PGlite, and PostgreSQL when
 *                                              BENCH_POSTGRES_URL or TEST_DATABASE_URL is set
 *   npm run bench:jobs -- 500 2000             latency samples, throughput jobs
 *   BENCH_INNGEST_URL=http://127.0.0.1:PORT    use that Inngest server instead of starting one
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "../lib/db/client";
import { defineJob } from "../lib/jobs/define-job";
import { enqueueJobEvents } from "../lib/jobs/enqueue";
import { createJobRegistry } from "../lib/jobs/job-registry";
import { createJobRunner, RUNNER_DEFAULTS } from "../lib/jobs/job-runner";
import { measureInngest, type TBenchHooks } from "./jobs-inngest";
import { onEachDatabase, percentile } from "./support";

process.env.XCLAW_LOG_SILENT ??= "1";
const latencySamples = Number(process.argv[2] ?? 200);
const throughputJobs = Number(process.argv[3] ?? 1_000);
const STEPS_PER_JOB = 200;

// --- the benchmark's jobs ----------------------------------------------------------------------

const firstStepSeen = new Map<string, (at: number) => void>();
let completedInProcess = 0;
let onCompleted: (() => void) | undefined;
const stepTimings: { firstRunMs?: number; replayMs?: number } = {};

const latencyJob = defineJob({ id: "bench.latency", trigger: { event: "bench/latency" }, schema: z.strictObject({ tag: z.string() }) }, async ({ event, step }) => {
  await step.run("first", () => firstStepSeen.get(event.data.tag)?.(performance.now()) ?? null);
});

const threeStepJob = defineJob({ id: "bench.three", trigger: { event: "bench/three" }, schema: z.strictObject({ n: z.number() }) }, async ({ event, step }) => {
  const a = await step.run("one", () => event.data.n + 1);
  const b = await step.run("two", () => a * 2);
  const c = await step.run("three", () => b - 1);
  completedInProcess += 1;
  onCompleted?.();
  return c;
});

function work(index: number): number {
  return index * 2 + 1;
}

const manyStepsJob = defineJob({ id: "bench.steps", trigger: { event: "bench/steps" }, schema: z.strictObject({}), retries: 0 }, async ({ step }) => {
  const started = performance.now();
  for (let index = 0; index < STEPS_PER_JOB; index++) await step.run(`s${index}`, () => work(index));
  const elapsed = performance.now() - started;
  // The first execution stores every step; after the sleep the run is replayed from them.
  if (stepTimings.firstRunMs === undefined) stepTimings.firstRunMs = elapsed;
  else stepTimings.replayMs = elapsed;
  await step.sleep("park", "1200ms");
});

const FANOUT = 10;
const leavesSeen = new Map<string, { left: number; done: (at: number) => void }>();

const fanoutJob = defineJob({ id: "bench.fanout", trigger: { event: "bench/fanout" }, schema: z.strictObject({ tag: z.string() }) }, async ({ event, step }) =>
  step.sendEvent("fan", Array.from({ length: FANOUT }, (_, index) => ({ name: "bench/leaf", data: { tag: event.data.tag, index } }))),
);

const leafJob = defineJob({ id: "bench.leaf", trigger: { event: "bench/leaf" }, schema: z.strictObject({ tag: z.string(), index: z.number() }) }, async ({ event, step }) =>
  step.run("leaf", () => {
    const waiting = leavesSeen.get(event.data.tag);
    if (waiting && --waiting.left === 0) waiting.done(performance.now());
    return event.data.index;
  }),
);

const hooks: TBenchHooks = {
  firstStep: (tag) => new Promise<number>((resolve) => firstStepSeen.set(tag, resolve)).finally(() => firstStepSeen.delete(tag)),
  threeStepsDone(count) {
    completedInProcess = 0;
    return new Promise<void>((resolve) => (onCompleted = () => completedInProcess >= count && resolve()));
  },
  fanoutDone: (tag) => new Promise<number>((done) => leavesSeen.set(tag, { left: FANOUT, done })).finally(() => leavesSeen.delete(tag)),
};

async function fanoutWallMs(): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < 3; index++) {
    const tag = randomBytes(6).toString("hex");
    const finished = hooks.fanoutDone(tag);
    const started = performance.now();
    await enqueueJobEvents(registry, { name: "bench/fanout", data: { tag } });
    times.push((await finished) - started);
  }
  return percentile(times, 50);
}

const jobs = [latencyJob, threeStepJob, manyStepsJob, fanoutJob, leafJob];
const registry = createJobRegistry(jobs);

// --- measurements ------------------------------------------------------------------------------

async function measure(label: string) {
  const runner = createJobRunner({ jobs, cron: false });
  await runner.start();
  const fmt = (value: number) => value.toFixed(2);
  try {
    // Warm up connections and the query plans.
    for (let index = 0; index < 20; index++) await sendAndWaitFirstStep();

    const latencies: number[] = [];
    const sendTimes: number[] = [];
    for (let index = 0; index < latencySamples; index++) {
      const { latency, send } = await sendAndWaitFirstStep();
      latencies.push(latency);
      sendTimes.push(send);
    }

    completedInProcess = 0;
    const allDone = new Promise<void>((resolve) => (onCompleted = () => completedInProcess >= throughputJobs && resolve()));
    const started = performance.now();
    let next = 0;
    const senders = Array.from({ length: 8 }, async () => {
      while (next < throughputJobs) {
        const n = next++;
        await enqueueJobEvents(registry, { name: "bench/three", data: { n } });
      }
    });
    await Promise.all(senders);
    const sentAt = performance.now();
    await allDone;
    // The last results are committed right after the handlers return.
    while ((await db().jobRun.count({ where: { jobId: "bench.three", status: "COMPLETED" } })) < throughputJobs) await new Promise((resolve) => setTimeout(resolve, 5));
    const throughputSeconds = (performance.now() - started) / 1000;

    stepTimings.firstRunMs = undefined;
    stepTimings.replayMs = undefined;
    const { runIds } = await enqueueJobEvents(registry, { name: "bench/steps", data: {} });
    while ((await db().jobRun.findUnique({ where: { id: runIds[0]! } }))?.status !== "COMPLETED") await new Promise((resolve) => setTimeout(resolve, 50));
    let sink = 0;
    const bareStarted = performance.now();
    const bareCalls = 1_000_000;
    for (let index = 0; index < bareCalls; index++) sink += work(index);
    const bareMs = (performance.now() - bareStarted) / bareCalls;
    if (sink === -1) console.log(sink);
    const stepMs = stepTimings.firstRunMs! / STEPS_PER_JOB;
    const replayMs = stepTimings.replayMs! / STEPS_PER_JOB;

    const fanoutMs = await fanoutWallMs();
    const p50 = percentile(latencies, 50);
    const jobsPerSecond = throughputJobs / throughputSeconds;
    console.log(`\njobs bench — ${label}, runner concurrency ${RUNNER_DEFAULTS.concurrency}`);
    console.log(`  send → first step   p50 ${fmt(p50)} ms  p99 ${fmt(percentile(latencies, 99))} ms   (sendEvent alone p50 ${fmt(percentile(sendTimes, 50))} ms; target p50 ≤ 50 ms on PostgreSQL)`);
    console.log(
      `  throughput          ${throughputJobs} jobs × 3 steps in ${fmt(throughputSeconds)} s = ${jobsPerSecond.toFixed(0)} jobs/s, ${(jobsPerSecond * 3).toFixed(0)} steps/s   (sending took ${fmt((sentAt - started) / 1000)} s; target ≥ 100 jobs/s)`,
    );
    console.log(`  one step.run        ${fmt(stepMs * 1000)} µs (stores its result)   replayed ${fmt(replayMs * 1000)} µs   bare call ${(bareMs * 1e6).toFixed(1)} ns`);
    console.log(`  ratios              step.run / bare call ${(stepMs / bareMs).toExponential(2)}x   replayed step / bare call ${(replayMs / bareMs).toExponential(2)}x   step.run / replayed ${(stepMs / replayMs).toFixed(0)}x`);
    console.log(`  10-way fan-out      step.sendEvent of 10 events → all 10 jobs' steps done: median ${fmt(fanoutMs)} ms of 3`);
    return { p50, jobsPerSecond };
  } finally {
    onCompleted = undefined;
    await runner.stop({ graceMs: 2_000 });
  }
}

async function sendAndWaitFirstStep(): Promise<{ latency: number; send: number }> {
  const tag = randomBytes(6).toString("hex");
  const seen = new Promise<number>((resolve) => firstStepSeen.set(tag, resolve));
  const started = performance.now();
  await enqueueJobEvents(registry, { name: "bench/latency", data: { tag } });
  const sent = performance.now();
  const at = await seen;
  firstStepSeen.delete(tag);
  return { latency: at - started, send: sent - started };
}

// --- databases ---------------------------------------------------------------------------------

const results = await onEachDatabase("xclaw_bench_jobs", (label) => measure(label));

if (results.pglite && results.postgres) {
  console.log(`\n  PostgreSQL / PGlite  latency p50 ${(results.postgres.p50 / results.pglite.p50).toFixed(2)}x   throughput ${(results.postgres.jobsPerSecond / results.pglite.jobsPerSecond).toFixed(2)}x`);
}
const inngest = await measureInngest(jobs.filter((job) => job !== manyStepsJob), hooks, {
  latencySamples: Math.min(latencySamples, 50),
  throughputJobs: Math.min(throughputJobs, 200),
});
if (inngest && results.postgres) {
  console.log(`
  Inngest / embedded on PostgreSQL  latency p50 ${(inngest.p50 / results.postgres.p50).toFixed(1)}x   throughput ${(inngest.jobsPerSecond / results.postgres.jobsPerSecond).toFixed(2)}x`);
}
const pass = (results.postgres?.p50 ?? 0) <= 50 && Object.values(results).every((result) => result.jobsPerSecond >= 100);
console.log(`\n  targets ${pass ? "met" : "NOT met"}`);
process.exit(0);
