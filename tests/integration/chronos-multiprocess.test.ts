import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as createJobRoute } from "@/app/api/jobs/route";
import { db } from "@/lib/db/client";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { writeChronosConfig } from "../support/chronos";
import { call, createUser } from "../support/http";
import { spawnWorker, waitUntil, type TWorkerProcess } from "../support/jobs";

// Slow by nature (several processes), and slower on a busy machine: room beyond the 30 s default.
vi.setConfig({ testTimeout: 120_000 });

/**
 * Two app-like processes (each an embedded runner with the real chronos jobs) tick the scheduler
 * for the same slots at the same moment, several times each: every (job, slot) gets exactly one
 * execution, and the model is asked exactly once per job. (PGlite serves one process, so this runs
 * on PostgreSQL only; the in-process race is in chronos-scheduler.test.ts.)
 */
writeChronosConfig({});

let fake: TFakeLlm;
const workers: TWorkerProcess[] = [];

describe.skipIf(process.env.XCLAW_TEST_DATABASE !== "postgres")("the scheduler in two processes", () => {
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGTERM");
    await Promise.all(workers.map((worker) => worker.exited));
    await fake?.close();
  });

  it("runs each (job, slot) exactly once", async () => {
    fake.script(() => ({ text: "all quiet", delayMs: 200 }));
    const jobIds: string[] = [];
    for (let index = 0; index < 5; index++) {
      const user = await createUser();
      const response = await call(createJobRoute, "/api/jobs", { cookie: user.cookie, body: { name: `patrol ${index}`, schedule: { everyMinutes: 15 }, prompt: "Patrol." } });
      jobIds.push(response.json.job.id);
    }
    // All five come due at the same slot.
    const slot = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000);
    await db().chronosJob.updateMany({ where: { id: { in: jobIds } }, data: { nextRunAt: slot } });
    const ticks = JSON.stringify([1, 2, 3, 4].map((second) => new Date(slot.getTime() + second * 1_000).toISOString()));
    const env = { CHRONOS_TICKS: ticks, OPENAI_BASE_URL: fake.openaiBaseUrl, OPENAI_API_KEY: "test", XCLAW_PROVIDERS: "openai" };
    for (let index = 0; index < 2; index++) workers.push(spawnWorker(env, "tests/support/chronos-worker.ts"));
    await Promise.all(workers.map((worker) => worker.ready));
    await waitUntil(() => workers.every((worker) => worker.output().includes("chronos-worker queued")), "both workers to tick", 60_000);
    const queuedByWorker = workers.map((worker) => Number(/chronos-worker queued (\d+)/.exec(worker.output())![1]));
    expect(queuedByWorker.reduce((sum, count) => sum + count, 0)).toBe(5);
    await waitUntil(async () => (await db().chronosExecution.count({ where: { jobId: { in: jobIds }, status: "SILENT" } })) === 5, "five silent executions", 60_000);
    const executions = await db().chronosExecution.findMany({ where: { jobId: { in: jobIds } } });
    expect(executions).toHaveLength(5);
    expect(new Set(executions.map((execution) => execution.jobId)).size).toBe(5);
    expect(executions.every((execution) => execution.scheduledFor?.getTime() === slot.getTime())).toBe(true);
    expect(fake.requests).toHaveLength(5);
  });
});
