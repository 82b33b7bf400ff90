import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PATCH as adminPatchJob } from "@/app/api/admin/scheduled-jobs/[id]/route";
import { POST as pauseAll } from "@/app/api/admin/scheduled-jobs/pause-all/route";
import { GET as adminJobs } from "@/app/api/admin/scheduled-jobs/route";
import { PATCH as patchJob } from "@/app/api/jobs/[id]/route";
import { POST as runJobRoute } from "@/app/api/jobs/[id]/run/route";
import { POST as createJobRoute } from "@/app/api/jobs/route";
import { INTERRUPTED_REASON, runExecution } from "@/lib/chronos/run-execution";
import { scheduleDueJobs } from "@/lib/chronos/scheduler";
import { ensureExecutionSession } from "@/lib/chronos/execution-session";
import { EXECUTION_EVENT, executionEventId } from "@/lib/chronos/events";
import { beginJobExecution } from "@/lib/chronos/executions";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { sendEvent } from "@/lib/jobs/send-event";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "../support/chat";
import { startChronosRunner, writeChronosConfig, waitForExecution } from "../support/chronos";
import { call, createUser } from "../support/http";
import { waitUntil } from "../support/jobs";

/**
 * The scheduler: exactly one execution per (job, slot) however many ticks race, overlap recorded
 * as skipped, one catch-up after downtime, daylight saving days, the administrators' switches,
 * and a run interrupted by a crash that is recorded, never run again.
 */
writeChronosConfig({});

let fake: TFakeLlm;
let runner: TJobRunner;

beforeAll(async () => {
  fake = await startFakeLlm();
  runner = await startChronosRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await fake.close();
});
beforeEach(async () => {
  useFakeProvider(fake);
  // The scheduler looks at every user's jobs: earlier tests' jobs must not come due in this one's ticks.
  await db().chronosJob.updateMany({ data: { enabled: false, nextRunAt: null } });
});
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

type TUser = Awaited<ReturnType<typeof createUser>>;

async function createJob(user: TUser, body: Record<string, unknown> = {}): Promise<{ id: string; nextRunAt: string }> {
  const response = await call(createJobRoute, "/api/jobs", { cookie: user.cookie, body: { name: "Patrol", schedule: { everyMinutes: 10 }, prompt: "Patrol.", ...body } });
  expect(response.status, JSON.stringify(response.json)).toBe(201);
  return response.json.job;
}

/** One scheduler tick at `now`, and the runs it queued handed to the jobs layer (as chronos.tick does). */
async function tick(now: Date) {
  const result = await scheduleDueJobs({ now });
  if (result.queued.length) await sendEvent(result.queued.map((entry) => ({ name: EXECUTION_EVENT, data: entry, id: executionEventId(entry.executionId) })));
  return result;
}

describe("the scheduler", () => {
  it("creates exactly one execution per (job, slot) when many ticks race, and runs it once", async () => {
    const user = await createUser();
    const job = await createJob(user);
    const slot = new Date(job.nextRunAt);
    fake.script(() => ({ text: "all quiet" }));
    const results = await Promise.all(Array.from({ length: 6 }, () => tick(new Date(slot.getTime() + 5_000))));
    expect(results.reduce((sum, result) => sum + result.queued.length, 0)).toBe(1);
    const executions = await db().chronosExecution.findMany({ where: { jobId: job.id } });
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ trigger: "SCHEDULE", scheduledFor: slot });
    expect((await waitForExecution(executions[0]!.id)).status).toBe("SILENT");
    expect(fake.requests).toHaveLength(1);
    // The next slot is planned; the same tick again changes nothing.
    const after = await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(after.nextRunAt!.getTime()).toBe(slot.getTime() + 10 * 60_000);
    expect((await tick(new Date(slot.getTime() + 5_000))).queued).toEqual([]);
  });

  it("records a slot whose previous run is still going as skipped, and runs the next one normally", async () => {
    const user = await createUser();
    const job = await createJob(user);
    const first = new Date(job.nextRunAt);
    fake.script([{ text: "slow patrol done", delayMs: 2_000 }, { text: "next patrol done" }]);
    const [queued] = (await tick(new Date(first.getTime() + 1_000))).queued;
    await waitUntil(() => fake.requests.length === 1, "the first run to reach the model");
    const second = await tick(new Date(first.getTime() + 10 * 60_000 + 1_000));
    expect(second.skipped).toBe(1);
    const skipped = await db().chronosExecution.findFirstOrThrow({ where: { jobId: job.id, status: "SKIPPED" } });
    expect(skipped.statusReason).toMatch(/^The previous run of this job was still going/);
    expect(skipped.sessionId).toBeNull();
    expect((await waitForExecution(queued!.executionId)).status).toBe("SILENT");
    const third = await tick(new Date(first.getTime() + 20 * 60_000 + 1_000));
    expect(third.queued).toHaveLength(1);
    expect((await waitForExecution(third.queued[0]!.executionId)).status).toBe("SILENT");
    expect((await db().chronosExecution.findMany({ where: { jobId: job.id }, orderBy: { scheduledFor: "asc" } })).map((execution) => execution.status)).toEqual(["SILENT", "SKIPPED", "SILENT"]);
  });

  it("after downtime makes up one missed run (the latest), says how many were missed, and plans the next from now", async () => {
    const user = await createUser();
    const job = await createJob(user);
    const due = new Date(job.nextRunAt);
    fake.script(() => ({ text: "caught up" }));
    const now = new Date(due.getTime() + 3 * 3_600_000 + 4 * 60_000);
    const result = await tick(now);
    expect(result.queued).toHaveLength(1);
    const execution = await waitForExecution(result.queued[0]!.executionId);
    expect(execution).toMatchObject({ trigger: "CATCH_UP", scheduledFor: new Date(due.getTime() + 3 * 3_600_000) });
    expect(await db().chronosExecution.count({ where: { jobId: job.id } })).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect((await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } })).nextRunAt).toEqual(new Date(due.getTime() + 3 * 3_600_000 + 10 * 60_000));
    expect(execution.status).toBe("SILENT");
    expect(execution.statusReason).toBe("18 earlier runs were missed while xclaw was not running; only this one was made up. caught up");
  });

  it.each([
    ["spring-forward", new Date("2026-03-28T20:00:00Z"), new Date("2026-03-29T05:00:00Z"), "2026-03-29T01:00:00.000Z"],
    ["fall-back", new Date("2026-10-24T20:00:00Z"), new Date("2026-10-25T05:00:00Z"), "2026-10-25T00:30:00.000Z"],
  ])("runs a 02:30 Europe/Berlin job exactly once on the %s day, ticking every minute through the night", async (_day, from, to, expected) => {
    const user = await createUser();
    const { id } = await createJob(user, { schedule: { cron: "30 2 * * *", tz: "Europe/Berlin" } });
    // The job was set up before the night in question.
    await db().chronosJob.update({ where: { id }, data: { nextRunAt: new Date("2026-01-01T00:00:00Z") } });
    await scheduleDueJobs({ now: from });
    await db().chronosExecution.deleteMany({ where: { jobId: id } });
    await db().chronosJob.update({ where: { id }, data: { runningExecutionId: null, runningSince: null } });
    for (let time = from.getTime() + 60_000; time <= to.getTime(); time += 60_000) await scheduleDueJobs({ now: new Date(time) });
    const executions = await db().chronosExecution.findMany({ where: { jobId: id } });
    expect(executions.map((execution) => execution.scheduledFor!.toISOString())).toEqual([expected]);
  });
});

describe("administrators", () => {
  it("see every user's jobs, pause one (only they resume it), and pause all schedules", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const owner = await createUser();
    const job = await createJob(owner);
    expect((await call(adminJobs, "/api/admin/scheduled-jobs", { cookie: owner.cookie })).status).toBe(403);
    const listed = await call(adminJobs, "/api/admin/scheduled-jobs", { cookie: admin.cookie });
    expect(listed.json.jobs.find((entry: { id: string }) => entry.id === job.id)).toMatchObject({ ownerEmail: owner.user.email });
    expect(listed.json.schedulesPaused).toBe(false);

    const paused = await call(adminPatchJob, `/api/admin/scheduled-jobs/${job.id}`, { cookie: admin.cookie, method: "PATCH", body: { paused: true }, params: { id: job.id } });
    expect(paused.json.job).toMatchObject({ pausedByAdmin: true, nextRunAt: null });
    const resumedByOwner = await call(patchJob, `/api/jobs/${job.id}`, { cookie: owner.cookie, method: "PATCH", body: { enabled: true }, params: { id: job.id } });
    expect(resumedByOwner.json.job).toMatchObject({ pausedByAdmin: true, nextRunAt: null });
    const runNow = await call(runJobRoute, `/api/jobs/${job.id}/run`, { cookie: owner.cookie, method: "POST", params: { id: job.id } });
    expect(runNow.status).toBe(409);
    expect(runNow.json.error.message).toMatch(/paused by an administrator/);
    const resumed = await call(adminPatchJob, `/api/admin/scheduled-jobs/${job.id}`, { cookie: admin.cookie, method: "PATCH", body: { paused: false }, params: { id: job.id } });
    expect(resumed.json.job.pausedByAdmin).toBe(false);
    expect(resumed.json.job.nextRunAt).not.toBeNull();

    expect((await call(pauseAll, "/api/admin/scheduled-jobs/pause-all", { cookie: owner.cookie, body: { paused: true } })).status).toBe(403);
    expect((await call(pauseAll, "/api/admin/scheduled-jobs/pause-all", { cookie: admin.cookie, body: { paused: true } })).json).toEqual({ paused: true });
    const due = new Date(resumed.json.job.nextRunAt);
    const whilePaused = await tick(new Date(due.getTime() + 1_000));
    expect(whilePaused).toMatchObject({ queued: [], paused: true });
    expect(await db().chronosExecution.count({ where: { jobId: job.id } })).toBe(0);
    // The slot passed; it is not made up after the switch goes off.
    expect((await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } })).nextRunAt!.getTime()).toBeGreaterThan(due.getTime());
    await call(pauseAll, "/api/admin/scheduled-jobs/pause-all", { cookie: admin.cookie, body: { paused: false } });
    expect((await tick(new Date(due.getTime() + 2_000))).queued).toEqual([]);
  });
});

describe("a run interrupted by a crash", () => {
  it("is recorded as FAILED with the reason and never started again", async () => {
    const user = await createUser();
    const job = await createJob(user);
    const row = await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } });
    const begun = await beginJobExecution({ job: row, trigger: "SCHEDULE", scheduledFor: new Date(job.nextRunAt) });
    expect(begun.outcome).toBe("queued");
    const execution = begun.outcome === "queued" ? begun.execution : undefined;
    const sessionId = await ensureExecutionSession(execution!, "Patrol");
    // What a process killed mid-run leaves behind: the session RUNNING under a dead runner, its lease expired, a step started.
    await db().chatSession.update({ where: { id: sessionId }, data: { status: "RUNNING", runnerId: "dead-process", runId: crypto.randomUUID(), leaseExpiresAt: new Date(Date.now() - 60_000), nextSeq: 2 } });
    await db().step.create({ data: { sessionId, userId: user.user.id, seq: 1, type: "USER_INPUT", name: "prompt", status: "COMPLETED", input: { text: "Patrol." } } });
    await db().chronosExecution.update({ where: { id: execution!.id }, data: { status: "RUNNING", startedAt: new Date() } });

    const result = await runExecution(execution!.id);
    expect(result.status).toBe("failed");
    expect(fake.requests).toHaveLength(0);
    const stored = await db().chronosExecution.findUniqueOrThrow({ where: { id: execution!.id } });
    expect(stored).toMatchObject({ status: "FAILED", statusReason: INTERRUPTED_REASON, sessionId });
    expect(await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ runningExecutionId: null, lastStatus: "FAILED" });
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).statusReason).toBe("interrupted");
    // Running it once more (another retry) changes nothing.
    expect((await runExecution(execution!.id)).status).toBe("failed");
    expect(fake.requests).toHaveLength(0);
  });
});
