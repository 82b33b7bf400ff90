import { InngestTestEngine } from "@inngest/test";
import { Inngest } from "inngest";
import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { inngestLogger } from "@/lib/jobs/inngest-client";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { fixtureJobs, oversizedJob, retiredJob, stepsJob, unserialisableJob } from "../support/jobs-fixtures";
import { startTestRunner, waitForRun } from "../support/jobs";

/**
 * Bad input ends the affected run FAILED with a reason a person can act on, and touches nothing
 * else: the other runs sent alongside complete.
 */
const registry = createJobRegistry(fixtureJobs);
let fixture: TFixtureServer;
let runner: TJobRunner;

beforeAll(async () => {
  fixture = await startFixtureServer();
  process.env.JOBS_FIXTURE_URL = fixture.url;
  runner = await startTestRunner();
});

afterAll(async () => {
  await runner?.stop({ graceMs: 1_000 });
  await fixture?.close();
});

it("fails each bad run with its reason, without retrying deterministic failures, while healthy runs complete", async () => {
  const { runIds } = await enqueueJobEvents(registry, [
    { name: "test/throws-string", data: { key: "a" } },
    { name: "test/unserialisable", data: { key: "bigint" } },
    { name: "test/oversized", data: { key: "huge" } },
    { name: "test/invokes-unknown", data: { key: "x" } },
    { name: "test/steps", data: { key: "healthy" } },
  ]);
  const [throwsString, unserialisable, oversized, invokesUnknown, healthy] = await Promise.all(runIds.map((id) => waitForRun(id, ["COMPLETED", "FAILED"])));

  expect(throwsString).toMatchObject({ status: "FAILED", error: 'the job threw a non-Error value: "a plain string, not an Error"' });
  expect(unserialisable).toMatchObject({ status: "FAILED", attempt: 0 });
  expect(unserialisable!.error).toMatch(/^step "bigint" returned a value that is not JSON-serialisable \(.*BigInt.*\)\. Return plain data/);
  expect(oversized).toMatchObject({ status: "FAILED", attempt: 0 });
  expect(oversized!.error).toBe(
    'step "huge" returned 2.0 MB, more than the 512.0 KB a step may store (jobs.maxStepOutputBytes). Store large data elsewhere and return a reference to it.',
  );
  expect(invokesUnknown).toMatchObject({ status: "FAILED", attempt: 0 });
  expect(invokesUnknown!.error).toContain('Unknown job "test.retired"');
  // The steps before the bad one ran once and are stored; the bad step is stored as failed.
  expect([fixture.count("bigint:count"), fixture.count("huge:count")]).toEqual([1, 1]);
  const steps = await db().jobStep.findMany({ where: { runId: unserialisable!.id }, orderBy: { startedAt: "asc" } });
  expect(steps.map((step) => [step.stepId, step.status])).toEqual([
    ["count", "COMPLETED"],
    ["bigint", "FAILED"],
  ]);
  expect(healthy).toMatchObject({ status: "COMPLETED", output: { first: 1, second: 1 } });
});

it("fails a run of a job this app does not know (e.g. removed in a newer version)", async () => {
  const { runIds } = await enqueueJobEvents(createJobRegistry([retiredJob]), { name: "test/retired", data: { key: "old" } });
  const run = await waitForRun(runIds[0]!, ["COMPLETED", "FAILED"]);
  expect(run.status).toBe("FAILED");
  expect(run.error).toBe('Unknown job "test.retired": no job with this id is in the catalog of this app version.');
});

it("refuses bad definitions when they are made, not when they first run", () => {
  const handler = async () => null;
  expect(() => createJobRegistry([stepsJob, stepsJob])).toThrow('Two job definitions have the id "test.steps".');
  expect(() => defineJob({ id: "Bad Id", trigger: { event: "x" } }, handler)).toThrow(/the id must be lower case/);
  expect(() => defineJob({ id: "no-schema", trigger: { event: "x" } }, handler)).toThrow(/needs a zod schema/);
  expect(() => defineJob({ id: "seconds", trigger: { cron: "*/5 * * * * *" } }, handler)).toThrow(/must have exactly five fields/);
  expect(() => defineJob({ id: "zone", trigger: { cron: "0 3 * * *", tz: "Mars/Olympus" } }, handler)).toThrow(/is not valid/);
  expect(() => defineJob({ id: "key", trigger: { cron: "0 3 * * *" }, concurrency: { limit: 2, key: "data.userId" } }, handler)).toThrow(/not a key expression/);
  expect(() => defineJob({ id: "timeout", trigger: { cron: "0 3 * * *" }, timeouts: { finish: "soon" } }, handler)).toThrow(/timeouts.finish/);
});

it("Inngest: the same bad step results fail with the same reasons", async () => {
  const inngest = new Inngest({ id: "xclaw-test", isDev: true, logger: inngestLogger() });
  for (const [job, event, reason] of [
    [unserialisableJob, "test/unserialisable", /step \\"bigint\\" returned a value that is not JSON-serialisable/],
    [oversizedJob, "test/oversized", /step \\"huge\\" returned 2.0 MB, more than the 512.0 KB/],
  ] as const) {
    const engine = new InngestTestEngine({ function: toInngestFunction(inngest, job, { registry, maxStepOutputBytes: 512 * 1024 }) });
    const { error } = await engine.execute({ events: [{ name: event, data: { key: `inngest-${job.id}` } }] });
    expect(JSON.stringify(error)).toMatch(reason);
  }
});
