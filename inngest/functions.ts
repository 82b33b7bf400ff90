import { getBehaviourConfig } from "@/lib/config/behaviour";
import { jobCatalog } from "@/lib/app/job-catalog";
import { toInngestFunction } from "@/lib/jobs/inngest-adapter";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { inngest } from "./client";

/**
 * One Inngest function per job of the catalog: same id, trigger, concurrency, singleton, retries
 * and timeouts, wrapping the same handler (lib/jobs/inngest-adapter.ts maps our step API onto
 * Inngest's). Served on /api/inngest.
 */
const registry = createJobRegistry(jobCatalog);

export const functions = jobCatalog.map((job) =>
  toInngestFunction(inngest, job, { registry, maxStepOutputBytes: getBehaviourConfig().jobs.maxStepOutputBytes }),
);
