import { NonRetriableError } from "@/lib/jobs/job-errors";
import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { dbPool } from "@/lib/db/client";
import { defineJob, type TStepTools } from "@/lib/jobs/define-job";
import { EmbeddingError, embedTexts, embeddingSettings } from "./embeddings";
import { updateEmbeddings } from "./entries";
import { dropUnusedVectorIndexes, ensureVectorIndex, type TEntryTable } from "./vector-index";

/**
 * Vectors for rows that lack one of the configured model:
 * - memory.backfill (every 5 minutes): rows saved while no embedding provider was configured (or
 *   while it failed) get their vectors once one works;
 * - memory.reembed (Admin → Memory → Re-embed, or `POST /api/admin/memory/reembed`): after the
 *   embedding model changed, every row of another model is embedded again. Until then those rows
 *   are found by full text only: two models' vectors are never compared.
 * Work goes in memoized batches (a crash resumes after the last finished batch); progress is the
 * live count of rows with a current vector, which Admin → Memory shows.
 */
export const REEMBED_EVENT = "memory/reembed.requested";
const BATCH = 128;
const MAX_BATCHES_PER_RUN = 1_000;

export type TReembedScope = "missing" | "stale";

type TPending = { table: TEntryTable; id: string; text: string };

async function pendingRows(scope: TReembedScope, modelKey: string, limit: number): Promise<TPending[]> {
  // $1 is the current model either way (typed, so PostgreSQL knows it even where it is unused).
  const condition = scope === "missing" ? "entry.model IS NULL AND $1::text IS NOT NULL" : "entry.model IS DISTINCT FROM $1::text";
  const memories = await dbPool().query<{ id: string; text: string }>(
    `SELECT entry.memory_id AS id, memory."content" AS text FROM search_index.memory_entries entry JOIN "memories" memory ON memory."id" = entry.memory_id
     WHERE ${condition} ORDER BY entry.memory_id LIMIT $2`,
    [modelKey, limit],
  );
  const rows: TPending[] = memories.rows.map((row) => ({ table: "memory_entries", ...row }));
  if (rows.length >= limit) return rows;
  const chunks = await dbPool().query<{ id: string; text: string }>(
    `SELECT entry.chunk_id AS id, CASE WHEN chunk."heading" IS NULL THEN chunk."content" ELSE chunk."heading" || E'\\n\\n' || chunk."content" END AS text
     FROM search_index.chunk_entries entry JOIN "knowledge_chunks" chunk ON chunk."id" = entry.chunk_id
     WHERE ${condition} ORDER BY entry.chunk_id LIMIT $2`,
    [modelKey, limit - rows.length],
  );
  return [...rows, ...chunks.rows.map((row) => ({ table: "chunk_entries" as const, ...row }))];
}

/** Embeds one batch; returns how many rows it did (0: nothing left). */
export async function reembedBatch(scope: TReembedScope, signal?: AbortSignal): Promise<number> {
  const settings = embeddingSettings();
  if (!settings) return 0;
  const rows = await pendingRows(scope, settings.modelKey, BATCH);
  if (!rows.length) return 0;
  let vectors: number[][];
  try {
    vectors = await embedTexts(
      settings,
      rows.map((row) => row.text),
      { signal },
    );
  } catch (error) {
    if (error instanceof EmbeddingError && !error.retryable) throw new NonRetriableError(error.message);
    throw error;
  }
  for (const table of ["memory_entries", "chunk_entries"] as const) {
    const mine = rows.flatMap((row, index) => (row.table === table ? [{ id: row.id, modelKey: settings.modelKey, vector: vectors[index]! }] : []));
    if (!mine.length) continue;
    await ensureVectorIndex(table, settings.modelKey);
    await updateEmbeddings(table, mine);
  }
  return rows.length;
}

async function reembedAll(step: TStepTools, scope: TReembedScope, signal: AbortSignal) {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const done = await step.run(`batch-${batch}`, () => reembedBatch(scope, signal));
    if (!done) break;
    total += done;
  }
  const dropped = await step.run("drop-unused-indexes", async () => {
    const modelKey = embeddingSettings()?.modelKey;
    return [...(await dropUnusedVectorIndexes("memory_entries", modelKey)), ...(await dropUnusedVectorIndexes("chunk_entries", modelKey))];
  });
  return { embedded: total, droppedIndexes: dropped };
}

export const reembedJob = defineJob(
  {
    id: "memory.reembed",
    trigger: { event: REEMBED_EVENT },
    schema: z.object({ scope: z.enum(["missing", "stale"]).default("stale") }),
    singleton: { mode: "skip" },
    retries: 3,
  },
  async ({ event, step, signal }) => reembedAll(step, event.data.scope, signal),
);

export const backfillJob = defineJob({ id: "memory.backfill", trigger: { cron: "*/5 * * * *" }, singleton: { mode: "skip" }, retries: 0 }, async ({ step, signal }) => {
  if (!embeddingSettings(getBehaviourConfig())) return { embedded: 0, reason: "no embedding provider is configured" };
  return reembedAll(step, "missing", signal);
});
