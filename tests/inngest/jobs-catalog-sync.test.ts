import { afterAll, describe, expect, inject, it } from "vitest";
import { jobCatalog } from "@/lib/app/job-catalog";
import { isEventTrigger } from "@/lib/jobs/define-job";
import { startInngestApp, type TInngestApp } from "../support/inngest-app";
import { inngestGraphql } from "../support/jobs-backends";

/**
 * The app's real catalog (lib/app/job-catalog.ts) synced with a real Inngest server: every job
 * arrives as a function with its trigger (cron with its time zone), retries, concurrency,
 * singleton and timeouts. The app is removed from the server right after, so its cron jobs never
 * fire there.
 */
const baseUrl = inject("inngestUrl");
const APP_ID = "xclaw-catalog";
let app: TInngestApp | undefined;

describe.skipIf(!baseUrl)("the job catalog on Inngest", () => {
  afterAll(async () => {
    await app?.close();
    await inngestGraphql(baseUrl, "mutation($name: String!) { deleteAppByName(name: $name) }", { name: APP_ID }).catch(() => undefined);
  });

  it("syncs every catalog job with its configuration", async () => {
    app = await startInngestApp({ baseUrl, appId: APP_ID, jobs: jobCatalog });
    type TFn = { name: string; config: string; triggers: { type: string; value: string }[] };
    const { apps } = await inngestGraphql<{ apps: { name: string; functions: TFn[] }[] }>(baseUrl, "{ apps { name functions { name config triggers { type value } } } }");
    const functions = new Map(apps.find((one) => one.name === APP_ID)!.functions.map((fn) => [fn.name, fn]));
    expect([...functions.keys()].sort()).toEqual(jobCatalog.map((job) => job.id).sort());
    for (const job of jobCatalog) {
      const fn = functions.get(job.id)!;
      const config = JSON.parse(fn.config) as Record<string, unknown>;
      const trigger = isEventTrigger(job.trigger)
        ? { type: "EVENT", value: job.trigger.event }
        : { type: "CRON", value: `TZ=${job.trigger.tz ?? "UTC"} ${job.trigger.cron}` };
      expect(fn.triggers, job.id).toEqual([trigger]);
      expect(config, job.id).toMatchObject({ steps: [expect.objectContaining({ retries: job.retries })] });
      if (job.concurrency) {
        expect(config.concurrency, job.id).toEqual([expect.objectContaining({ limit: job.concurrency.limit, ...(job.concurrency.key ? { key: job.concurrency.key } : {}) })]);
      }
      if (job.singleton) expect(config.singleton, job.id).toEqual({ mode: job.singleton.mode, ...(job.singleton.key ? { key: job.singleton.key } : {}) });
      if (job.startTimeoutMs !== undefined) expect(config.timeouts, job.id).toMatchObject({ start: `${Math.max(1, Math.ceil(job.startTimeoutMs / 1000))}s` });
      if (job.finishTimeoutMs !== undefined) expect(config.timeouts, job.id).toMatchObject({ finish: `${Math.max(1, Math.ceil(job.finishTimeoutMs / 1000))}s` });
    }
  });
});
