import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { fixtureJobs } from "../support/jobs-fixtures";
import { spawnWorker, waitForRun, type TWorkerProcess } from "../support/jobs";

// Slow by nature (processes killed and restarted), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * kill -9 in the middle of a job: a worker process runs step "one", is killed while step "two" is
 * in flight, and a second worker process takes the run over once the lease expires. The replay
 * must not repeat step one (its side effect, counted by the fixture server, stays at one) and the
 * run must finish.
 */
let fixture: TFixtureServer;
const workers: TWorkerProcess[] = [];

beforeAll(async () => {
  fixture = await startFixtureServer();
});

afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await fixture?.close();
});

it("a worker killed between two steps: the completed step is not repeated and another worker finishes the run", async () => {
  const env = { JOBS_FIXTURE_URL: fixture.url, JOBS_LEASE_MS: "1500" };
  const first = spawnWorker(env);
  workers.push(first);
  await first.ready;

  const { runIds } = await enqueueJobEvents(createJobRegistry(fixtureJobs), { name: "test/crash", data: { key: "crash" } });
  const runId = runIds[0]!;
  // Step "two" has started (step "one" is stored): kill the worker without any chance to clean up.
  await fixture.blocked("crash:two");
  expect(fixture.count("crash:one")).toBe(1);
  const running = await db().jobRun.findUniqueOrThrow({ where: { id: runId } });
  expect(running.status).toBe("RUNNING");
  expect((await db().jobStep.findMany({ where: { runId } })).map((step) => [step.stepId, step.status])).toEqual([["one", "COMPLETED"]]);
  first.child.kill("SIGKILL");
  expect(await first.exited).toBeNull();
  fixture.release("crash:two");

  const second = spawnWorker(env);
  workers.push(second);
  await second.ready;
  const run = await waitForRun(runId, ["COMPLETED", "FAILED"], 30_000);
  expect(run.status).toBe("COMPLETED");
  expect(run.leaseOwner).toBeNull();
  // Taken over after the dead worker's lease expired: one more attempt, step one replayed from its
  // stored result, step two (interrupted in flight) run again.
  expect(run.attempt).toBe(1);
  expect(fixture.count("crash:one")).toBe(1);
  expect(fixture.count("crash:two")).toBe(2);
  expect(run.output).toEqual({ one: 1, two: 2 });

  second.child.kill("SIGTERM");
  expect(await second.exited).toBe(0);
});
