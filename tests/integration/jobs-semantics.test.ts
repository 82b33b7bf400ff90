import { InngestTestEngine } from "@inngest/test";
import { Inngest } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { enqueueCronRun, nextCronRun } from "@/lib/jobs/cron-runs";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { inngestLogger } from "@/lib/jobs/inngest-client";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { embeddedBackend } from "../support/jobs-backends";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { badFanoutJob, cronJob, exclusiveJob, fanoutJob, fixtureJobs, flakyJob, parentJob, sleeperJob, slowJob, stepsJob } from "../support/jobs-fixtures";
import { jobsSemanticsSuite } from "../support/jobs-semantics-suite";
import { startTestRunner, waitForRun } from "../support/jobs";

/**
 * Job semantics on the embedded runner (this file's database). The shared test bodies
 * (tests/support/jobs-semantics-suite.ts) run here and, against a real Inngest server, in
 * tests/inngest/jobs-semantics.test.ts; the tests below add what only the embedded runner shows
 * (its rows, the cron slot, a runner restart) and check the Inngest functions through
 * @inngest/test, which replays a function step by step without a server. Effects are counted by the fixture server, so "ran once" means the step's
 * side effect happened once.
 */
const registry = createJobRegistry(fixtureJobs);
let fixture: TFixtureServer;
let runner: TJobRunner;
let keyCounter = 0;
const newKey = () => `k${++keyCounter}-${Date.now()}`;

beforeAll(async () => {
  fixture = await startFixtureServer();
  process.env.JOBS_FIXTURE_URL = fixture.url;
  runner = await startTestRunner();
});

afterAll(async () => {
  await runner?.stop({ graceMs: 1_000 });
  await fixture?.close();
});

const inngest = new Inngest({ id: "xclaw-test", isDev: true, logger: inngestLogger() });
function onInngest(job: Parameters<typeof toInngestFunction>[1]) {
  return new InngestTestEngine({ function: toInngestFunction(inngest, job, { registry, maxStepOutputBytes: 512 * 1024 }) });
}

jobsSemanticsSuite(() => ({ backend: embeddedBackend(registry), fixture }));

async function sendOne(name: string, data: unknown, id?: string) {
  const result = await enqueueJobEvents(registry, { name, data, id });
  expect(result.runIds).toHaveLength(1);
  return result.runIds[0]!;
}

describe("step memoization", () => {
  it("embedded runner: each step runs once and the result is the stored values", async () => {
    const key = newKey();
    const runId = await sendOne("test/steps", { key });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(run.output).toEqual({ first: 1, second: 1 });
    expect([fixture.count(`${key}:first`), fixture.count(`${key}:second`)]).toEqual([1, 1]);
    const steps = await db().jobStep.findMany({ where: { runId }, orderBy: { startedAt: "asc" } });
    expect(steps.map((step) => [step.stepId, step.status, step.output])).toEqual([
      ["first", "COMPLETED", { value: 1 }],
      ["second", "COMPLETED", { value: 1 }],
    ]);
  });

  it("Inngest: the same job replays step by step and each step's effect happens once", async () => {
    const key = newKey();
    const { result, error } = await onInngest(stepsJob).execute({ events: [{ name: "test/steps", data: { key } }] });
    expect(error).toBeUndefined();
    expect(result).toEqual({ first: 1, second: 1 });
    expect([fixture.count(`${key}:first`), fixture.count(`${key}:second`)]).toEqual([1, 1]);
  });
});

describe("retries", () => {
  it("embedded runner: a failing step is retried; completed steps before it are not repeated", async () => {
    const key = newKey();
    const runId = await sendOne("test/flaky", { key });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(run.attempt).toBe(1);
    expect(run.output).toEqual({ before: 1, flaky: 2 });
    expect(fixture.count(`${key}:before`)).toBe(1);
    expect(fixture.count(`${key}:flaky`)).toBe(2);
  });

  it("Inngest: the function carries the retry count, and the step failure surfaces (the harness does not retry)", async () => {
    const key = newKey();
    const fn = toInngestFunction(inngest, flakyJob, { registry, maxStepOutputBytes: 512 * 1024 });
    expect(fn.opts.retries).toBe(2);
    const { error } = await new InngestTestEngine({ function: fn }).execute({ events: [{ name: "test/flaky", data: { key } }] });
    expect(JSON.stringify(error)).toContain("flaky failure 1");
    expect(fixture.count(`${key}:before`)).toBe(1);
    expect(fixture.count(`${key}:flaky`)).toBe(1);
  });
});

describe("sleeps", () => {
  it("embedded runner: a sleeping run is parked in the database and finishes under a new runner after a restart", async () => {
    const key = newKey();
    const runId = await sendOne("test/sleeper", { key });
    const parked = await waitForRun(runId, ["SLEEPING", "COMPLETED", "FAILED"]);
    expect(parked.status).toBe("SLEEPING");
    expect(parked.leaseOwner).toBeNull();
    expect(parked.runAt.getTime()).toBeGreaterThan(Date.now() - 1_000);
    const nap = await db().jobStep.findUniqueOrThrow({ where: { runId_stepId: { runId, stepId: "nap" } } });
    expect(nap.status).toBe("SLEEPING");
    // The process that parked it goes away; a new one (no timers from the old) finishes the run.
    await runner.stop({ graceMs: 1_000 });
    runner = await startTestRunner();
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(run.output).toEqual({ before: 1, after: 1 });
    expect([fixture.count(`${key}:before`), fixture.count(`${key}:after`)]).toEqual([1, 1]);
    expect((await db().jobStep.findUniqueOrThrow({ where: { runId_stepId: { runId, stepId: "nap" } } })).status).toBe("COMPLETED");
  });

  it("Inngest: the sleep is a step.sleep with the same id and duration, and the steps around it run once", async () => {
    const key = newKey();
    // The harness has no clock: a sleep is a step it waits for until it is mocked as done.
    const { result, ctx } = await onInngest(sleeperJob).execute({
      events: [{ name: "test/sleeper", data: { key } }],
      steps: [{ id: "nap", handler: () => null }],
    });
    expect(ctx.step.sleep).toHaveBeenCalledWith("nap", "2s");
    expect(result).toEqual({ before: 1, after: 1 });
    expect([fixture.count(`${key}:before`), fixture.count(`${key}:after`)]).toEqual([1, 1]);
  });
});

describe("step.invoke", () => {
  it("embedded runner: the child job runs as its own run and its result comes back", async () => {
    const runId = await sendOne("test/parent", { n: 21 });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(run.output).toEqual({ doubled: 42 });
    const child = await db().jobRun.findFirstOrThrow({ where: { parentRunId: runId } });
    expect(child).toMatchObject({ jobId: "test.child", status: "COMPLETED", output: 42, data: { n: 21 } });
  });

  it("embedded runner: a failing child makes the invoke step throw its error", async () => {
    const runId = await sendOne("test/parent", { n: 1, fail: true });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("FAILED");
    expect(run.error).toContain("the child refuses");
  });

  it("Inngest: step.invoke targets the child function with the data (the invoke is mocked in the harness)", async () => {
    const { result, ctx } = await onInngest(parentJob).execute({
      events: [{ name: "test/parent", data: { n: 21 } }],
      steps: [{ id: "call-child", handler: () => 42 }],
    });
    expect(result).toEqual({ doubled: 42 });
    expect(ctx.step.invoke).toHaveBeenCalledWith("call-child", expect.objectContaining({ data: { n: 21, fail: undefined }, timeout: "1m" }));
  });
});

describe("step.sendEvent", () => {
  it("embedded runner: the event starts its job once, with an id derived from the run and step", async () => {
    const key = newKey();
    const runId = await sendOne("test/fanout", { key });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    expect(run.output).toEqual({ ids: [`${runId}:emit:0`] });
    const child = await db().jobRun.findFirstOrThrow({ where: { eventId: `${runId}:emit:0` } });
    expect((await waitForRun(child.id, ["COMPLETED", "FAILED"])).output).toEqual({ first: 1, second: 1 });
    expect(fixture.count(`${key}:child:first`)).toBe(1);
  });

  it("embedded runner: an event that fails its schema fails the run with the reason and queues nothing", async () => {
    const before = await db().jobRun.count({ where: { jobId: "test.steps" } });
    const runId = await sendOne("test/bad-fanout", { key: newKey() });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("FAILED");
    expect(run.error).toMatch(/Event "test\/steps" is not valid for job "test.steps": data.key: .*string/);
    expect(await db().jobRun.count({ where: { jobId: "test.steps" } })).toBe(before);
  });

  it("Inngest: the validated events go to step.sendEvent (mocked), and an invalid one fails with the same reason", async () => {
    const key = newKey();
    const { result, ctx } = await onInngest(fanoutJob).execute({
      events: [{ name: "test/fanout", data: { key } }],
      steps: [{ id: "emit", handler: () => ({ ids: ["event-1"] }) }],
    });
    expect(result).toEqual({ ids: ["event-1"] });
    expect(ctx.step.sendEvent).toHaveBeenCalledWith("emit", [{ id: expect.any(String), name: "test/steps", data: { key: `${key}:child` } }]);
    const bad = await onInngest(badFanoutJob).execute({ events: [{ name: "test/bad-fanout", data: { key } }] });
    expect(JSON.stringify(bad.error)).toMatch(/Event \\"test\/steps\\" is not valid for job \\"test.steps\\": data.key/);
  });
});

describe("cron", () => {
  it("embedded runner: every process fires a slot, one run is created per slot", async () => {
    const slot = new Date("2026-01-01T03:30:00.000Z");
    const results = await Promise.all([enqueueCronRun(cronJob, { slot }), enqueueCronRun(cronJob, { slot }), enqueueCronRun(cronJob, { slot })]);
    expect(results.flatMap((result) => result.runIds)).toHaveLength(1);
    const run = await waitForRun(results.flatMap((result) => result.runIds)[0]!, ["COMPLETED", "FAILED"]);
    expect(run).toMatchObject({ status: "COMPLETED", trigger: "cron 30 3 * * * (Europe/Berlin)", data: { cron: "30 3 * * *", scheduledAt: slot.toISOString() } });
    const next = nextCronRun(cronJob)!;
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit" }).format(next)).toBe("03:30");
  });

  it("Inngest: the cron trigger carries the time zone", () => {
    const fn = toInngestFunction(inngest, cronJob, { registry, maxStepOutputBytes: 512 * 1024 });
    expect(fn.opts.triggers).toEqual([{ cron: "TZ=Europe/Berlin 30 3 * * *" }]);
  });
});

describe("timeouts", () => {
  it("embedded runner: a run that cannot start within timeouts.start is cancelled", async () => {
    // Concurrency 1 and 1.5 s of work each: whichever starts second has waited past its 1 s.
    const { runIds } = await enqueueJobEvents(registry, [
      { name: "test/exclusive", data: { key: newKey() } },
      { name: "test/exclusive", data: { key: newKey() } },
    ]);
    const runs = await Promise.all(runIds.map((id) => waitForRun(id, ["COMPLETED", "FAILED", "CANCELLED"])));
    expect(runs.map((run) => run.status).sort()).toEqual(["CANCELLED", "COMPLETED"]);
    const cancelled = runs.find((run) => run.status === "CANCELLED")!;
    expect(cancelled.error).toBe("Cancelled: it did not start within 1 s (timeouts.start).");
    expect(cancelled.startedAt).toBeNull();
  });

  it("embedded runner: a run still going after timeouts.finish is cancelled through its signal", async () => {
    const key = newKey();
    const runId = await sendOne("test/slow", { key });
    const run = await waitForRun(runId, ["COMPLETED", "FAILED", "CANCELLED"]);
    expect(run).toMatchObject({ status: "CANCELLED", error: "Cancelled: it did not finish within 1 s (timeouts.finish)." });
    expect(fixture.count(`${key}:aborted`)).toBe(1);
    expect(fixture.count(`${key}:after`)).toBe(0);
  });

  it("Inngest: the timeouts and the concurrency limit are the function's", () => {
    const exclusive = toInngestFunction(inngest, exclusiveJob, { registry, maxStepOutputBytes: 512 * 1024 });
    expect(exclusive.opts).toMatchObject({ timeouts: { start: "1s" }, concurrency: { limit: 1 } });
    expect(toInngestFunction(inngest, slowJob, { registry, maxStepOutputBytes: 512 * 1024 }).opts.timeouts).toEqual({ finish: "1s" });
  });
});

describe("sendEvent", () => {
  it("a second send with the same id within 24 hours is a no-op", async () => {
    const id = `event-${newKey()}`;
    const key = newKey();
    const first = await enqueueJobEvents(registry, { name: "test/steps", data: { key }, id });
    const second = await enqueueJobEvents(registry, { name: "test/steps", data: { key }, id });
    expect(first.runIds).toHaveLength(1);
    expect(second).toEqual({ ids: [id], runIds: [], duplicateIds: [id] });
    await waitForRun(first.runIds[0]!, ["COMPLETED"]);
    expect(await db().jobRun.count({ where: { eventId: id } })).toBe(1);
    // After the window the id counts as new again.
    await db().jobEvent.update({ where: { id }, data: { receivedAt: new Date(Date.now() - 25 * 3600 * 1000) } });
    expect((await enqueueJobEvents(registry, { name: "test/steps", data: { key }, id })).runIds).toHaveLength(1);
  });

  it("a delayed event (ts) queues its run at once but starts it no earlier than ts", async () => {
    const key = newKey();
    const ts = new Date(Date.now() + 1_500);
    const sent = await enqueueJobEvents(registry, { name: "test/steps", data: { key }, ts });
    const queued = await db().jobRun.findUniqueOrThrow({ where: { id: sent.runIds[0]! } });
    expect(queued.status).toBe("QUEUED");
    expect(queued.runAt.getTime()).toBeGreaterThanOrEqual(ts.getTime() - 50);
    const run = await waitForRun(queued.id, ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");
    // An ordering bound: a slow machine only starts it later.
    expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(ts.getTime() - 50);
    await expect(enqueueJobEvents(registry, { name: "test/steps", data: { key }, ts: new Date(Number.NaN) })).rejects.toThrow(/ts must be a valid date/);
  });

  it("refuses unknown events and invalid payloads with a clear error, queueing nothing", async () => {
    const before = await db().jobRun.count();
    await expect(enqueueJobEvents(registry, { name: "test/nope", data: {} })).rejects.toThrow(/Unknown event "test\/nope": no job is triggered by it/);
    await expect(enqueueJobEvents(registry, [{ name: "test/steps", data: { key: "fine" } }, { name: "test/steps", data: { key: 1 } }])).rejects.toThrow(
      /Event "test\/steps" is not valid for job "test.steps": data.key:/,
    );
    expect(await db().jobRun.count()).toBe(before);
  });
});
