import pgvector from "pgvector";
import { dbPool } from "@/lib/db/client";

/**
 * Embeddings by (model key, SHA-256 of the text) in search_index.embedding_cache. Reads and writes
 * are single statements on the pool; entries older than embeddings.cacheDays are deleted by
 * memory.prune (a cache miss costs one API call, never a wrong answer).
 */
export async function readCachedEmbeddings(modelKey: string, hashes: string[]): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  if (!hashes.length) return found;
  const { rows } = await dbPool().query<{ content_hash: string; embedding: string }>(
    `SELECT content_hash, embedding::text AS embedding FROM search_index.embedding_cache WHERE model = $1 AND content_hash = ANY($2::text[])`,
    [modelKey, hashes],
  );
  for (const row of rows) found.set(row.content_hash, pgvector.fromSql(row.embedding) as number[]);
  return found;
}

export async function writeCachedEmbeddings(modelKey: string, rows: { hash: string; vector: number[] }[]): Promise<void> {
  if (!rows.length) return;
  await dbPool().query(
    `INSERT INTO search_index.embedding_cache (model, content_hash, embedding)
     SELECT $1, hash, embedding::vector FROM unnest($2::text[], $3::text[]) AS input(hash, embedding)
     ON CONFLICT (model, content_hash) DO NOTHING`,
    [modelKey, rows.map((row) => row.hash), rows.map((row) => pgvector.toSql(row.vector))],
  );
}

export async function pruneEmbeddingCache(olderThan: Date): Promise<number> {
  const { rowCount } = await dbPool().query(`DELETE FROM search_index.embedding_cache WHERE created_at < $1`, [olderThan]);
  return rowCount ?? 0;
}
