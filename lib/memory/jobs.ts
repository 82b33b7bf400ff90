import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { defineJob } from "@/lib/jobs/define-job";
import { indexDocumentJob } from "./knowledge/index-job";
import { memoryExtractionJob } from "./memories/extraction-job";
import { pruneEmbeddingCache } from "./search/embedding-cache";
import { backfillJob, reembedJob } from "./search/reembed";

/** memory.prune (daily): old embedding-cache entries and extraction counters of past days. */
export const memoryPruneJob = defineJob({ id: "memory.prune", trigger: { cron: "17 4 * * *" }, retries: 1 }, async ({ step }) =>
  step.run("prune", async () => {
    const days = getBehaviourConfig().embeddings.cacheDays;
    const cacheEntries = await pruneEmbeddingCache(new Date(Date.now() - days * 86_400_000));
    const { count: extractionDays } = await db().memoryExtractionDay.deleteMany({ where: { day: { lt: new Date(Date.now() - 3 * 86_400_000) } } });
    return { cacheEntries, extractionDays };
  }),
);

/** The memory and knowledge-base jobs, for lib/app/job-catalog.ts. */
export const memoryJobs = [memoryExtractionJob, indexDocumentJob, reembedJob, backfillJob, memoryPruneJob] as const;
