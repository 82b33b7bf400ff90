import pgvector from "pgvector";
import { dbPool } from "@/lib/db/client";
import { searchableText, TEXT_SEARCH_CONFIG } from "./search-text";
import type { TEntryTable } from "./vector-index";

/**
 * Writes the search rows of memories and chunks (search_index.*_entries): the full-text vector of
 * the segmented text, and the embedding with its model key when there is one. `executor` is the
 * Prisma client or the transaction client of the caller's transaction (on the embedded database an
 * interactive transaction must not use anything else).
 */
export type TSqlExecutor = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> };

export type TEmbedded = { modelKey: string; vector: number[] };

export async function writeMemoryEntry(executor: TSqlExecutor, entry: { memoryId: string; userId: string; text: string; embedding?: TEmbedded }): Promise<void> {
  await executor.$executeRawUnsafe(
    `INSERT INTO search_index.memory_entries (memory_id, user_id, model, embedding, search)
     VALUES ($1::uuid, $2::uuid, $3, $4::vector, to_tsvector('${TEXT_SEARCH_CONFIG}', $5))
     ON CONFLICT (memory_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding, search = EXCLUDED.search`,
    entry.memoryId,
    entry.userId,
    entry.embedding?.modelKey ?? null,
    entry.embedding ? pgvector.toSql(entry.embedding.vector) : null,
    searchableText(entry.text),
  );
}

export type TChunkEntry = { chunkId: string; userId: string; knowledgeBaseId: string; documentId: string; text: string; embedding?: TEmbedded };

export async function writeChunkEntries(executor: TSqlExecutor, entries: TChunkEntry[]): Promise<void> {
  // Bounded statements: a 5,000-chunk document is written in slices, all inside the caller's transaction.
  for (let start = 0; start < entries.length; start += 200) {
    const slice = entries.slice(start, start + 200);
    await executor.$executeRawUnsafe(
      `INSERT INTO search_index.chunk_entries (chunk_id, user_id, knowledge_base_id, document_id, model, embedding, search)
       SELECT chunk_id::uuid, user_id::uuid, knowledge_base_id::uuid, document_id::uuid, model, embedding::vector, to_tsvector('${TEXT_SEARCH_CONFIG}', search)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS input(chunk_id, user_id, knowledge_base_id, document_id, model, embedding, search)`,
      slice.map((entry) => entry.chunkId),
      slice.map((entry) => entry.userId),
      slice.map((entry) => entry.knowledgeBaseId),
      slice.map((entry) => entry.documentId),
      slice.map((entry) => entry.embedding?.modelKey ?? null),
      slice.map((entry) => (entry.embedding ? pgvector.toSql(entry.embedding.vector) : null)),
      slice.map((entry) => searchableText(entry.text)),
    );
  }
}

const ID_COLUMN: Record<TEntryTable, string> = { memory_entries: "memory_id", chunk_entries: "chunk_id" };

/** Stores new embeddings for existing rows (backfill, re-embed, a late embedding). */
export async function updateEmbeddings(table: TEntryTable, rows: { id: string; modelKey: string; vector: number[] }[]): Promise<void> {
  if (!rows.length) return;
  await dbPool().query(
    `UPDATE search_index.${table} AS entry SET model = input.model, embedding = input.embedding::vector
     FROM unnest($1::uuid[], $2::text[], $3::text[]) AS input(id, model, embedding)
     WHERE entry.${ID_COLUMN[table]} = input.id`,
    [rows.map((row) => row.id), rows.map((row) => row.modelKey), rows.map((row) => pgvector.toSql(row.vector))],
  );
}

/** How many rows have a vector of the current model, of another model, or none. */
export async function embeddingCoverage(table: TEntryTable, modelKey: string | undefined, userId?: string): Promise<{ total: number; current: number; otherModel: number; missing: number }> {
  const { rows } = await dbPool().query<{ total: string; current: string; other_model: string; missing: string }>(
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE model = $1) AS current,
            count(*) FILTER (WHERE model IS NOT NULL AND model IS DISTINCT FROM $1) AS other_model,
            count(*) FILTER (WHERE model IS NULL) AS missing
     FROM search_index.${table} WHERE ($2::uuid IS NULL OR user_id = $2::uuid)`,
    [modelKey ?? null, userId ?? null],
  );
  const row = rows[0]!;
  return { total: Number(row.total), current: Number(row.current), otherModel: Number(row.other_model), missing: Number(row.missing) };
}
