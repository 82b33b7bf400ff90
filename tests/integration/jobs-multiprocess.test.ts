import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { fixtureJobs } from "../support/jobs-fixtures";
import { spawnWorker, waitUntil, type TWorkerProcess } from "../support/jobs";

// Slow by nature (several processes), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Three worker processes on one PostgreSQL database, each with its own runner (and LISTEN
 * connection) executing one run at a time, sharing the work. With one run per process, any
 * overlap is an overlap between processes, so the limits below can only hold if they hold across
 * processes. Overlaps are judged from the order in which the fixture server received "start" and
 * "end" reports, never from clocks. (PGlite serves one process, so this runs on PostgreSQL only.)
 */
const registry = createJobRegistry(fixtureJobs);
let fixture: TFixtureServer;
const workers: TWorkerProcess[] = [];
const onceIds = Array.from({ length: 20 }, (_, index) => `once-${index}`);

describe.skipIf(process.env.XCLAW_TEST_DATABASE !== "postgres")("several runner processes on one PostgreSQL", () => {
  beforeAll(async () => {
    fixture = await startFixtureServer();
    // Every worker sends the same 20 event ids as soon as it runs, racing the others.
    const send = JSON.stringify(onceIds.map((id) => ({ name: "test/once", data: {}, id })));
    for (let index = 0; index < 3; index++) {
      workers.push(spawnWorker({ JOBS_FIXTURE_URL: fixture.url, JOBS_WORKER_SEND: send, JOBS_CONCURRENCY: "1" }));
    }
    await Promise.all(workers.map((worker) => worker.ready));
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGTERM");
    await Promise.all(workers.map((worker) => worker.exited));
    await fixture?.close();
  });

  async function finished(jobId: string, expected: number) {
    await waitUntil(
      async () => (await db().jobRun.count({ where: { jobId, status: { in: ["COMPLETED", "FAILED", "CANCELLED"] } } })) >= expected,
      `${expected} finished ${jobId} runs`,
      60_000,
    );
    return db().jobRun.findMany({ where: { jobId } });
  }

  it("each event id runs once, though every process sent every id", async () => {
    const runs = await finished("test.once", onceIds.length);
    expect(runs).toHaveLength(onceIds.length);
    expect(runs.every((run) => run.status === "COMPLETED")).toBe(true);
    expect(onceIds.map((id) => fixture.count(`once:${id}`))).toEqual(onceIds.map(() => 1));
  });

  it("a concurrency limit of 2 is never exceeded across the processes", async () => {
    await enqueueJobEvents(registry, Array.from({ length: 12 }, (_, n) => ({ name: "test/limited", data: { n } })));
    const runs = await finished("test.limited", 12);
    expect(runs.every((run) => run.status === "COMPLETED")).toBe(true);
    // Three processes could run three at once; the limit held them to two (and two were reached,
    // so runs did execute side by side in different processes).
    expect(fixture.maxOverlap("limited")).toBe(2);
    expect(new Set(fixture.spans("limited").map((span) => span.worker)).size).toBeGreaterThanOrEqual(2);
  });

  it("a singleton never runs twice at once, also while a replaced run is still finishing its step", async () => {
    const sent: string[] = [];
    for (let n = 0; n < 6; n++) {
      sent.push(...(await enqueueJobEvents(registry, { name: "test/singleton", data: { n, group: "g" } })).runIds);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const runs = await finished("test.singleton", sent.length);
    expect(fixture.maxOverlap("singleton:g")).toBe(1);
    // "cancel" mode: every run but the last was replaced; the last one completed.
    const last = runs.find((run) => run.id === sent.at(-1));
    expect(last?.status).toBe("COMPLETED");
    expect(runs.filter((run) => run.status === "CANCELLED").length).toBeGreaterThan(0);
    expect(runs.filter((run) => run.status === "FAILED")).toEqual([]);
  });
});
