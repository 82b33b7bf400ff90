import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { jobsPruneJob } from "@/lib/jobs/builtin/jobs-prune";
import { jobCatalog } from "@/lib/app/job-catalog";
import { enqueueCronRun } from "@/lib/jobs/cron-runs";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startTestRunner, waitForRun } from "../support/jobs";

/** The jobs of the catalog, run by the embedded runner against real rows. */
let runner: TJobRunner;

beforeAll(async () => {
  runner = await startTestRunner({ jobs: jobCatalog });
});

afterAll(async () => {
  await runner?.stop({ graceMs: 1_000 });
});

const DAY = 24 * 3600 * 1000;

async function seedRun(options: { status: "COMPLETED" | "FAILED" | "CANCELLED" | "SLEEPING"; endedDaysAgo: number | null; createdDaysAgo: number }) {
  return db().jobRun.create({
    data: {
      jobId: "old.job",
      status: options.status,
      trigger: "event old",
      eventName: "old",
      eventId: `old-${Math.random()}`,
      data: {},
      maxAttempts: 1,
      createdAt: new Date(Date.now() - options.createdDaysAgo * DAY),
      endedAt: options.endedDaysAgo === null ? null : new Date(Date.now() - options.endedDaysAgo * DAY),
      // A waiting run must never be pruned, however old; keep it from being claimed meanwhile.
      runAt: new Date(Date.now() + 365 * DAY),
      steps: { create: [{ stepId: "s", kind: "run", status: "COMPLETED", output: { value: 1 }, attempt: 0 }] },
    },
  });
}

it("jobs.prune deletes finished runs older than jobs.keepDays (with their steps) and event ids older than a day", async () => {
  const oldCompleted = await seedRun({ status: "COMPLETED", endedDaysAgo: 20, createdDaysAgo: 20 });
  const oldFailed = await seedRun({ status: "FAILED", endedDaysAgo: 15, createdDaysAgo: 15 });
  const recent = await seedRun({ status: "COMPLETED", endedDaysAgo: 1, createdDaysAgo: 1 });
  const waiting = await seedRun({ status: "SLEEPING", endedDaysAgo: null, createdDaysAgo: 30 });
  await db().jobEvent.createMany({
    data: [
      { id: "event-old", name: "old", receivedAt: new Date(Date.now() - 2 * DAY) },
      { id: "event-new", name: "old", receivedAt: new Date() },
    ],
  });

  const { runIds } = await enqueueCronRun(jobsPruneJob, { manualBy: "a test" });
  const run = await waitForRun(runIds[0]!, ["COMPLETED", "FAILED"]);
  expect(run).toMatchObject({ status: "COMPLETED", output: { runs: 2, eventIds: 1 } });

  const left = (await db().jobRun.findMany({ where: { jobId: "old.job" } })).map((row) => row.id).sort();
  expect(left).toEqual([recent.id, waiting.id].sort());
  expect(await db().jobStep.count({ where: { runId: { in: [oldCompleted.id, oldFailed.id] } } })).toBe(0);
  expect((await db().jobEvent.findMany({ where: { id: { in: ["event-old", "event-new"] } } })).map((event) => event.id)).toEqual(["event-new"]);
});

it("a singleton cron job is skipped while a run of it is still in progress", async () => {
  // No runner for a moment, so the first run is certainly still queued when the next slot fires.
  await runner.stop({ graceMs: 1_000 });
  const first = await enqueueCronRun(jobsPruneJob, { slot: new Date("2026-01-01T03:30:00Z") });
  const second = await enqueueCronRun(jobsPruneJob, { slot: new Date("2026-01-02T03:30:00Z") });
  expect(first.runIds).toHaveLength(1);
  expect(second).toMatchObject({ runIds: [], skippedJobIds: ["jobs.prune"] });
  runner = await startTestRunner({ jobs: jobCatalog });
  await waitForRun(first.runIds[0]!, ["COMPLETED"]);
  const third = await enqueueCronRun(jobsPruneJob, { slot: new Date("2026-01-03T03:30:00Z") });
  expect(third.runIds).toHaveLength(1);
});
