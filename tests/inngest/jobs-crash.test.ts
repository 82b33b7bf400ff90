import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { freePort } from "@/lib/net/free-port";
import { startInngestApp, type TInngestApp } from "../support/inngest-app";
import { inngestBackend } from "../support/jobs-backends";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { fixtureJobs } from "../support/jobs-fixtures";
import { spawnWorker, type TWorkerProcess } from "../support/jobs";

/**
 * kill -9 of the app process while Inngest holds the run: step "one" is done (Inngest stored its
 * result), step "two" is in flight in the app when the process dies. Inngest sees the request
 * fail and retries it after its backoff; a restarted app process on the same URL finishes the run
 * with step one replayed from Inngest's stored result (its side effect stays at one) and step two,
 * which never completed, run again.
 */
const baseUrl = inject("inngestUrl");
let fixture: TFixtureServer;
let sender: TInngestApp;
const workers: TWorkerProcess[] = [];

describe.skipIf(!baseUrl)("an app process killed mid-step on Inngest", () => {
  beforeAll(async () => {
    fixture = await startFixtureServer();
    // Only to send events with: the jobs run in the app processes below, under their own app id.
    sender = await startInngestApp({ baseUrl, appId: "xclaw-crash-sender", jobs: [] });
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
    await Promise.all(workers.map((worker) => worker.exited));
    await sender?.close();
    await fixture?.close();
  });

  it("a restarted app finishes the run; no completed step runs twice", { timeout: 150_000 }, async () => {
    const env = { JOBS_FIXTURE_URL: fixture.url, INNGEST_TEST_URL: baseUrl, INNGEST_APP_ID: "xclaw-crash", INNGEST_APP_PORT: String(await freePort()) };
    const first = spawnWorker(env, "tests/support/inngest-app-process.ts");
    workers.push(first);
    await first.ready;

    const backend = inngestBackend(baseUrl, sender.client, createJobRegistry(fixtureJobs));
    const key = `crash-${Date.now()}`;
    const [sent] = await backend.send({ name: "test/crash", data: { key } });
    await fixture.blocked(`${key}:two`);
    expect(fixture.count(`${key}:one`)).toBe(1);
    expect((await backend.waitForRun(sent!, ["RUNNING"])).status).toBe("RUNNING");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();
    fixture.release(`${key}:two`);

    const second = spawnWorker(env, "tests/support/inngest-app-process.ts");
    workers.push(second);
    await second.ready;
    const run = await backend.waitForRun(sent!, ["COMPLETED", "FAILED"], 120_000);
    expect(run).toMatchObject({ status: "COMPLETED", output: { one: 1, two: 2 } });
    expect(fixture.count(`${key}:one`)).toBe(1);
    expect(fixture.count(`${key}:two`)).toBe(2);

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
