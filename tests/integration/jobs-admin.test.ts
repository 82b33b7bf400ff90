import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as getRun } from "@/app/api/admin/jobs/runs/[id]/route";
import { POST as cancelRun } from "@/app/api/admin/jobs/runs/[id]/cancel/route";
import { POST as retryRun } from "@/app/api/admin/jobs/runs/[id]/retry/route";
import { GET as listRuns, POST as startRun } from "@/app/api/admin/jobs/runs/route";
import { db } from "@/lib/db/client";
import { jobCatalog } from "@/lib/app/job-catalog";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { fixtureJobs } from "../support/jobs-fixtures";
import { call, createUser } from "../support/http";
import { spawnWorker, startTestRunner, waitForRun, waitUntil, type TWorkerProcess } from "../support/jobs";

// Slow by nature (a runner in another process), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

const registry = createJobRegistry(fixtureJobs);
let fixture: TFixtureServer;
let runner: TJobRunner | undefined;
let admin: Awaited<ReturnType<typeof createUser>>;
let member: Awaited<ReturnType<typeof createUser>>;
const workers: TWorkerProcess[] = [];

beforeAll(async () => {
  fixture = await startFixtureServer();
  process.env.JOBS_FIXTURE_URL = fixture.url;
  admin = await createUser({ role: "ADMIN" });
  member = await createUser();
});

afterAll(async () => {
  await runner?.stop({ graceMs: 1_000 });
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await fixture?.close();
});

async function send(name: string, key: string) {
  return (await enqueueJobEvents(registry, { name, data: { key } })).runIds[0]!;
}

describe("admin jobs API", () => {
  it("is for admins only", async () => {
    const runId = await send("test/steps", "admins-only");
    const params = { id: runId };
    for (const [handler, path, method] of [
      [listRuns, "/api/admin/jobs/runs", "GET"],
      [getRun, `/api/admin/jobs/runs/${runId}`, "GET"],
      [retryRun, `/api/admin/jobs/runs/${runId}/retry`, "POST"],
      [cancelRun, `/api/admin/jobs/runs/${runId}/cancel`, "POST"],
      [startRun, "/api/admin/jobs/runs", "POST"],
    ] as const) {
      expect((await call(handler, path, { method, params, bearer: member.token })).status).toBe(403);
      expect((await call(handler, path, { method, params, cookie: member.cookie })).status).toBe(403);
      expect((await call(handler, path, { method, params })).status).toBe(401);
    }
  });

  it("lists runs, filters by status, and shows a run with its steps", async () => {
    runner = await startTestRunner({ jobs: [...fixtureJobs, ...jobCatalog] });
    const completed = await send("test/steps", "listed");
    const failed = await send("test/throws-string", "listed");
    await waitForRun(completed, ["COMPLETED"]);
    await waitForRun(failed, ["FAILED"]);

    const all = await call(listRuns, "/api/admin/jobs/runs", { bearer: admin.token });
    expect(all.status).toBe(200);
    const ids = all.json.runs.map((run: { id: string }) => run.id);
    expect(ids).toEqual(expect.arrayContaining([completed, failed]));
    expect(all.json.runs.find((run: { id: string }) => run.id === failed)).toEqual({
      id: failed,
      jobId: "test.throws-string",
      status: "failed",
      attempt: 0,
      maxAttempts: 1,
      trigger: "event test/throws-string",
      createdAt: expect.any(String),
      startedAt: expect.any(String),
      endedAt: expect.any(String),
      durationMs: expect.any(Number),
      error: 'the job threw a non-Error value: "a plain string, not an Error"',
      cancelRequested: false,
      parentRunId: null,
    });

    const onlyFailed = await call(listRuns, "/api/admin/jobs/runs?status=failed", { cookie: admin.cookie });
    expect(onlyFailed.json.runs.map((run: { status: string }) => run.status)).toEqual(onlyFailed.json.runs.map(() => "failed"));
    expect(onlyFailed.json.runs.map((run: { id: string }) => run.id)).toContain(failed);
    expect(onlyFailed.json.runs.map((run: { id: string }) => run.id)).not.toContain(completed);
    const bad = await call(listRuns, "/api/admin/jobs/runs?status=exploded", { bearer: admin.token });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("status must be one of queued, running, sleeping, completed, failed, cancelled");

    const detail = await call(getRun, `/api/admin/jobs/runs/${completed}`, { bearer: admin.token, params: { id: completed } });
    expect(detail.status).toBe(200);
    expect(detail.json.run).toMatchObject({ id: completed, status: "completed", eventName: "test/steps", data: { key: "listed" }, output: { first: 1, second: 1 } });
    expect(detail.json.run.steps.map((step: { stepId: string; status: string; output: unknown }) => [step.stepId, step.status, step.output])).toEqual([
      ["first", "completed", 1],
      ["second", "completed", 1],
    ]);
    for (const id of ["3f1c1a52-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const missing = await call(getRun, `/api/admin/jobs/runs/${id}`, { bearer: admin.token, params: { id } });
      expect(missing.status).toBe(404);
    }
  });

  it("runs a cron job of the catalog now", async () => {
    await db().rateLimitBucket.create({ data: { key: "sign-in:email:old@example.com", count: 5, windowStart: new Date(Date.now() - 2 * 24 * 3600 * 1000) } });
    await db().rateLimitBucket.create({ data: { key: "sign-in:email:new@example.com", count: 1, windowStart: new Date() } });
    const response = await call(startRun, "/api/admin/jobs/runs", { body: { jobId: "rate-limits.prune" }, cookie: admin.cookie });
    expect(response.status).toBe(201);
    expect(response.json.run).toMatchObject({ jobId: "rate-limits.prune", trigger: `run now by an administrator (${admin.user.email})` });
    const run = await waitForRun(response.json.run.id, ["COMPLETED", "FAILED"]);
    expect(run).toMatchObject({ status: "COMPLETED", output: { deleted: 1 } });
    expect((await db().rateLimitBucket.findMany()).map((bucket) => bucket.key)).toEqual(["sign-in:email:new@example.com"]);
    expect((await call(startRun, "/api/admin/jobs/runs", { body: { jobId: "nope" }, bearer: admin.token })).status).toBe(404);
    expect((await call(startRun, "/api/admin/jobs/runs", { body: {}, bearer: admin.token })).status).toBe(400);
  });

  it("retries a failed run from after its last completed step", async () => {
    const runId = await send("test/fails-once", "retried");
    expect((await waitForRun(runId, ["FAILED", "COMPLETED"])).status).toBe("FAILED");
    const completedRetry = await call(retryRun, `/api/admin/jobs/runs/${runId}/retry`, { method: "POST", cookie: admin.cookie, params: { id: runId } });
    expect(completedRetry.status).toBe(200);
    expect(["queued", "running", "completed"]).toContain(completedRetry.json.run.status);
    const run = await waitForRun(runId, ["COMPLETED", "FAILED"]);
    expect(run).toMatchObject({ status: "COMPLETED", output: { before: 1, maybe: 2 } });
    expect(fixture.count("retried:before")).toBe(1);
    // A completed run cannot be retried, nor cancelled.
    expect((await call(retryRun, `/api/admin/jobs/runs/${runId}/retry`, { method: "POST", bearer: admin.token, params: { id: runId } })).status).toBe(409);
    expect((await call(cancelRun, `/api/admin/jobs/runs/${runId}/cancel`, { method: "POST", bearer: admin.token, params: { id: runId } })).status).toBe(409);
  });

  it("cancels a sleeping run at once; it never continues", async () => {
    const runId = await send("test/sleeper", "cancel-sleeping");
    await waitForRun(runId, ["SLEEPING"]);
    const response = await call(cancelRun, `/api/admin/jobs/runs/${runId}/cancel`, { method: "POST", bearer: admin.token, params: { id: runId } });
    expect(response.status).toBe(200);
    expect(response.json.run).toMatchObject({ status: "cancelled", error: `Cancelled by an administrator (${admin.user.email}).` });
    // Well past the sleep's wake-up time (the runner polls every 100 ms) it is still cancelled and
    // its last step never ran.
    const cancelled = await waitForRun(runId, ["CANCELLED"]);
    await waitUntil(() => Date.now() > cancelled.runAt.getTime() + 1_000, "the wake-up time to pass");
    expect((await db().jobRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe("CANCELLED");
    expect(fixture.count("cancel-sleeping:after")).toBe(0);
  });

  it("cancels a running handler in another process through its signal", async () => {
    await runner?.stop({ graceMs: 1_000 });
    runner = undefined;
    const worker = spawnWorker({ JOBS_FIXTURE_URL: fixture.url });
    workers.push(worker);
    await worker.ready;
    const runId = await send("test/cancellable", "cancel-running");
    await waitUntil(() => fixture.count("cancel-running:started") === 1, "the handler to start");
    const response = await call(cancelRun, `/api/admin/jobs/runs/${runId}/cancel`, { method: "POST", cookie: admin.cookie, params: { id: runId } });
    expect(response.status).toBe(200);
    expect(response.json.run).toMatchObject({ status: "running", cancelRequested: true });
    const run = await waitForRun(runId, ["CANCELLED", "COMPLETED", "FAILED"]);
    expect(run).toMatchObject({ status: "CANCELLED", error: `Cancelled by an administrator (${admin.user.email}).`, leaseOwner: null });
    // The handler's signal fired in the worker process, and the step after it never ran.
    expect(fixture.count("cancel-running:aborted")).toBe(1);
    expect(fixture.count("cancel-running:after")).toBe(0);
  });
});
