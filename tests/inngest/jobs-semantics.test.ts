import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { startInngestApp, type TInngestApp } from "../support/inngest-app";
import { inngestBackend, inngestGraphql, type TJobsBackend } from "../support/jobs-backends";
import { startFixtureServer, type TFixtureServer } from "../support/jobs-fixture-server";
import { crashJob, cronJob, fixtureJobs } from "../support/jobs-fixtures";
import { jobsSemanticsSuite } from "../support/jobs-semantics-suite";

/**
 * The jobs semantics suite on a real Inngest server (`inngest dev` from ../shared/tools/inngest,
 * see tests/support/inngest-global-setup.ts): the fixture jobs are served by a plain HTTP server
 * in this process through the SDK's serve handler, the server syncs them and runs them, and the
 * same test bodies as on the embedded runner check the outcome.
 */
const baseUrl = inject("inngestUrl");
const registry = createJobRegistry(fixtureJobs);
// test/crash belongs to tests/inngest/jobs-crash.test.ts's app process: every app on the server
// whose function listens to an event runs it, so only one app may serve it.
const served = fixtureJobs.filter((job) => job !== crashJob);
let fixture: TFixtureServer;
let app: TInngestApp;
let backend: TJobsBackend;

describe.skipIf(!baseUrl)("jobs on a real Inngest server", () => {
  beforeAll(async () => {
    fixture = await startFixtureServer();
    process.env.JOBS_FIXTURE_URL = fixture.url;
    const port = inject("inngestAppPort") || undefined;
    // The server's -u app (synced every 5 s too); if that port was taken meanwhile, any port does,
    // since the app also syncs itself with a PUT.
    app = await startInngestApp({ baseUrl, appId: "xclaw-test", jobs: served, port }).catch(() =>
      startInngestApp({ baseUrl, appId: "xclaw-test", jobs: served }),
    );
    backend = inngestBackend(baseUrl, app.client, registry);
  });

  afterAll(async () => {
    await app?.close();
    await fixture?.close();
  });

  it("the app syncs every job with its trigger, retries, concurrency, singleton and timeouts", async () => {
    type TFn = { name: string; config: string; triggers: { type: string; value: string }[] };
    const { apps } = await inngestGraphql<{ apps: { name: string; functions: TFn[] }[] }>(baseUrl, "{ apps { name functions { name config triggers { type value } } } }");
    const functions = new Map(apps.find((one) => one.name === "xclaw-test")!.functions.map((fn) => [fn.name, fn]));
    expect([...functions.keys()].sort()).toEqual(served.map((job) => job.id).sort());
    const config = (id: string) => JSON.parse(functions.get(id)!.config) as Record<string, unknown>;
    expect(functions.get(cronJob.id)!.triggers).toEqual([{ type: "CRON", value: "TZ=Europe/Berlin 30 3 * * *" }]);
    expect(functions.get("test.steps")!.triggers).toEqual([{ type: "EVENT", value: "test/steps" }]);
    expect(config("test.flaky")).toMatchObject({ steps: [expect.objectContaining({ retries: 2 })] });
    expect(config("test.exclusive")).toMatchObject({ timeouts: { start: "1s" }, concurrency: [expect.objectContaining({ limit: 1 })] });
    expect(config("test.slow")).toMatchObject({ timeouts: { finish: "1s" } });
    expect(config("test.per-key")).toMatchObject({ concurrency: [expect.objectContaining({ limit: 1, key: "event.data.group" })] });
    expect(config("test.skip")).toMatchObject({ singleton: { key: "event.data.group", mode: "skip" } });
    expect(config("test.singleton")).toMatchObject({ singleton: { key: "event.data.group", mode: "cancel" } });
  });

  jobsSemanticsSuite(() => ({ backend, fixture }), { concurrent: true });
});
