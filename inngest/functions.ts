import { getBehaviourConfig } from "@/lib/config/behaviour";
import { jobCatalog } from "@/lib/app/job-catalog";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { withJobSpans } from "@/lib/telemetry/job-spans";
import { inngest } from "./client";

/**
 * One Inngest function per job of the catalog: same id, trigger, concurrency, singleton, retries
 * and timeouts, wrapping the same handler (lib/jobs/inngest-adapter.ts maps our step API onto
 * Inngest's), traced like the embedded runner's (lib/telemetry/job-spans.ts; each call Inngest
 * makes is one span). Served on /api/inngest.
 */
const jobs = withJobSpans(jobCatalog);
const registry = createJobRegistry(jobs);

export const functions = jobs.map((job) =>
  toInngestFunction(inngest, job, { registry, maxStepOutputBytes: getBehaviourConfig().jobs.maxStepOutputBytes }),
);
