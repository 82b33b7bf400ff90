import pg from "pg";
import pgvector from "pgvector";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { dbPool } from "@/lib/db/client";
import { createLogger } from "@/lib/observability/logger";
import { EmbeddingError, embedQuery, type TEmbeddingSettings } from "./embeddings";
import { searchQuery, TEXT_SEARCH_CONFIG } from "./search-text";
import { ensureVectorIndex, vectorExpression, type TEntryTable } from "./vector-index";

/**
 * Hybrid search over one user's memories or knowledge chunks: nearest vectors (HNSW, cosine) and
 * full-text matches (GIN, ts_rank), fused with reciprocal rank fusion. Either alone when the other
 * is unavailable: no embedding provider (or it failed) → "lexical"; a query without words → "vector".
 *
 * Every query filters by the user. A per-user filter on an HNSW scan is a post-filter: the index
 * returns the globally nearest ef_search rows and the filter keeps the user's, so a user who owns
 * 1% of the rows would often get nothing. pgvector 0.8's iterative scan (`hnsw.iterative_scan =
 * relaxed_order`, set for this transaction only) keeps scanning until LIMIT rows pass the filter;
 * the outer ORDER BY restores exact order among them.
 */
const log = createLogger("search");

/** Reciprocal rank fusion's constant (Cormack et al. 2009): damps the weight of the very first ranks. */
export const RRF_K = 60;

export type TSearchMode = "hybrid" | "vector" | "lexical";

export type TSearchFilter = { userId: string; knowledgeBaseIds?: string[]; documentIds?: string[] };

export type TSearchHit = {
  id: string;
  /** Fused score (higher is better): the sum of 1 / (60 + rank) over the modes that found it. */
  score: number;
  /** Cosine similarity to the query, when the vector search found it. */
  similarity?: number;
  /** ts_rank, when the full-text search found it. */
  textRank?: number;
};

const ID_COLUMN: Record<TEntryTable, string> = { memory_entries: "memory_id", chunk_entries: "chunk_id" };

function filterSql(filter: TSearchFilter, values: unknown[]): string {
  values.push(filter.userId);
  let where = `user_id = $${values.length}::uuid`;
  if (filter.knowledgeBaseIds) {
    values.push(filter.knowledgeBaseIds);
    where += ` AND knowledge_base_id = ANY($${values.length}::uuid[])`;
  }
  if (filter.documentIds) {
    values.push(filter.documentIds);
    where += ` AND document_id = ANY($${values.length}::uuid[])`;
  }
  return where;
}

/** The nearest-neighbour statement (exported for the tests, which EXPLAIN it). */
export function vectorSearchStatement(table: TEntryTable, filter: TSearchFilter, modelKey: string, vector: number[], limit: number) {
  const values: unknown[] = [pgvector.toSql(vector)];
  const where = filterSql(filter, values);
  values.push(limit);
  const expression = vectorExpression(modelKey);
  const text = `WITH nearest AS MATERIALIZED (
      SELECT ${ID_COLUMN[table]} AS id, ${expression} <=> $1::vector(${vector.length}) AS distance
      FROM search_index.${table}
      WHERE model = ${pg.escapeLiteral(modelKey)} AND ${where}
      ORDER BY ${expression} <=> $1::vector(${vector.length})
      LIMIT $${values.length})
    SELECT id, 1 - distance AS similarity FROM nearest ORDER BY distance`;
  return { text, values };
}

export async function vectorSearch(table: TEntryTable, filter: TSearchFilter, modelKey: string, vector: number[], limit: number): Promise<{ id: string; similarity: number }[]> {
  await ensureVectorIndex(table, modelKey);
  const statement = vectorSearchStatement(table, filter, modelKey, vector, limit);
  const client = await dbPool().connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [
        String(Math.max(getBehaviourConfig().memory.efSearch, limit)),
      ]);
      const { rows } = await client.query<{ id: string; similarity: number }>(statement.text, statement.values);
      await client.query("COMMIT");
      return rows.map((row) => ({ id: row.id, similarity: Number(row.similarity) }));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  } finally {
    client.release();
  }
}

export async function lexicalSearch(table: TEntryTable, filter: TSearchFilter, tsquery: string, limit: number): Promise<{ id: string; rank: number }[]> {
  const values: unknown[] = [tsquery];
  const where = filterSql(filter, values);
  values.push(limit);
  const { rows } = await dbPool().query<{ id: string; rank: number }>(
    `SELECT ${ID_COLUMN[table]} AS id, ts_rank(search, query) AS rank
     FROM search_index.${table}, to_tsquery('${TEXT_SEARCH_CONFIG}', $1) AS query
     WHERE ${where} AND search @@ query
     ORDER BY rank DESC, ${ID_COLUMN[table]}
     LIMIT $${values.length}`,
    values,
  );
  return rows.map((row) => ({ id: row.id, rank: Number(row.rank) }));
}

/** Reciprocal rank fusion of ranked id lists. */
export function fuseRankings(lists: { id: string }[][]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((item, index) => scores.set(item.id, (scores.get(item.id) ?? 0) + 1 / (RRF_K + index + 1)));
  return scores;
}

export type THybridSearchResult = { hits: TSearchHit[]; mode: TSearchMode; vectorError?: string };

export async function hybridSearch(options: {
  table: TEntryTable;
  filter: TSearchFilter;
  query: string;
  limit: number;
  /** The embedding provider; undefined means full-text only. */
  embeddings: TEmbeddingSettings | undefined;
  /** Attempts for the query's embedding (recall uses 1: a slow provider must not hold up a turn). */
  embedAttempts?: number;
  signal?: AbortSignal;
}): Promise<THybridSearchResult> {
  const { table, filter, limit } = options;
  // Each side contributes more candidates than asked for, so fusion has something to agree on.
  const candidates = Math.min(200, Math.max(limit * 4, 20));
  const tsquery = searchQuery(options.query);
  let vectorHits: { id: string; similarity: number }[] | undefined;
  let vectorError: string | undefined;
  if (options.embeddings && options.query.trim()) {
    try {
      const vector = await embedQuery(options.embeddings, options.query, { attempts: options.embedAttempts, signal: options.signal });
      vectorHits = await vectorSearch(table, filter, options.embeddings.modelKey, vector, candidates);
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      vectorError = error.message;
      log.warn("query embedding failed; searching full text only", { error: error.message });
    }
  }
  const lexicalHits = tsquery ? await lexicalSearch(table, filter, tsquery, candidates) : undefined;
  const mode: TSearchMode = vectorHits && lexicalHits ? "hybrid" : vectorHits ? "vector" : "lexical";
  const scores = fuseRankings([vectorHits ?? [], lexicalHits ?? []]);
  const similarity = new Map(vectorHits?.map((hit) => [hit.id, hit.similarity]));
  const textRank = new Map(lexicalHits?.map((hit) => [hit.id, hit.rank]));
  const hits = [...scores.entries()]
    .map(([id, score]) => ({ id, score, similarity: similarity.get(id), textRank: textRank.get(id) }))
    .sort((a, b) => b.score - a.score || (b.similarity ?? -2) - (a.similarity ?? -2))
    .slice(0, limit);
  return { hits, mode, vectorError };
}
