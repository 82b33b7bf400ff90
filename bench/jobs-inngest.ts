/**
 * bench:jobs on a real Inngest server (`inngest dev` from ../shared/tools/inngest, started here
 * and stopped by its PID, or the one at BENCH_INNGEST_URL): the same jobs as the embedded part,
 * served by an HTTP server in this process through the SDK's serve handler. Inngest calls the app
 * once per step, so its figures include one HTTP round trip per step.
 */
import { randomBytes } from "node:crypto";
import type { TAnyJobDefinition } from "../lib/jobs/define-job";
import { createJobRegistry } from "../lib/jobs/job-registry";
import { sendToInngest } from "../lib/jobs/send-event";
import { startInngestApp } from "../tests/support/inngest-app";
import { inngestToolsPresent, INNGEST_TOOLS, startInngestDevServer } from "../tests/support/inngest-dev-server";
import { percentile } from "./support";

export type TBenchHooks = {
  /** Resolves with the time the first step of the latency job with `tag` ran. */
  firstStep(tag: string): Promise<number>;
  /** Resolves when `count` three-step jobs have completed since the call. */
  threeStepsDone(count: number): Promise<void>;
  /** Resolves when all 10 leaves of the fan-out `tag` have run. */
  fanoutDone(tag: string): Promise<number>;
};

export type TBenchFigures = { p50: number; p99: number; jobsPerSecond: number; fanoutMs: number };

export async function measureInngest(jobs: readonly TAnyJobDefinition[], hooks: TBenchHooks, options: { latencySamples: number; throughputJobs: number }): Promise<TBenchFigures | undefined> {
  const given = process.env.BENCH_INNGEST_URL;
  if (!given && !inngestToolsPresent()) {
    console.log(`\njobs bench — Inngest: SKIPPED, no server at ${INNGEST_TOOLS} (or set BENCH_INNGEST_URL)`);
    return undefined;
  }
  const server = given ? undefined : await startInngestDevServer();
  const baseUrl = given ?? server!.url;
  const app = await startInngestApp({ baseUrl, appId: `xclaw-bench-${randomBytes(3).toString("hex")}`, jobs });
  const registry = createJobRegistry(jobs);
  const send = (name: string, data: Record<string, unknown>) => sendToInngest(app.client, registry, { name, data });
  const fmt = (value: number) => value.toFixed(1);
  try {
    const sample = async () => {
      const tag = randomBytes(6).toString("hex");
      const seen = hooks.firstStep(tag);
      const started = performance.now();
      await send("bench/latency", { tag });
      return (await seen) - started;
    };
    for (let index = 0; index < 5; index++) await sample();
    const latencies: number[] = [];
    for (let index = 0; index < options.latencySamples; index++) latencies.push(await sample());

    const done = hooks.threeStepsDone(options.throughputJobs);
    const started = performance.now();
    for (let first = 0; first < options.throughputJobs; first += 100) {
      const batch = Array.from({ length: Math.min(100, options.throughputJobs - first) }, (_, index) => ({ name: "bench/three", data: { n: first + index } }));
      await sendToInngest(app.client, registry, batch);
    }
    await done;
    const jobsPerSecond = options.throughputJobs / ((performance.now() - started) / 1000);

    const fanouts: number[] = [];
    for (let index = 0; index < 3; index++) {
      const tag = randomBytes(6).toString("hex");
      const finished = hooks.fanoutDone(tag);
      const fanStarted = performance.now();
      await send("bench/fanout", { tag });
      fanouts.push((await finished) - fanStarted);
    }
    const figures = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), jobsPerSecond, fanoutMs: percentile(fanouts, 50) };
    console.log(`\njobs bench — Inngest (inngest dev, one HTTP call per step)`);
    console.log(`  send → first step   p50 ${fmt(figures.p50)} ms  p99 ${fmt(figures.p99)} ms   (${options.latencySamples} samples)`);
    console.log(`  throughput          ${options.throughputJobs} jobs × 3 steps = ${jobsPerSecond.toFixed(1)} jobs/s`);
    console.log(`  10-way fan-out      step.sendEvent of 10 events → all 10 jobs' steps done: median ${fmt(figures.fanoutMs)} ms of 3`);
    return figures;
  } finally {
    await app.close();
    server?.stop();
  }
}
