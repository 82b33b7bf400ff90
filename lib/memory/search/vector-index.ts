import { createHash } from "node:crypto";
import pg from "pg";
import { dbPool } from "@/lib/db/client";
import { createLogger } from "@/lib/observability/logger";
import { dimensionsOfModelKey } from "./embeddings";

/**
 * HNSW indexes (cosine) for the vectors of one embedding model. The `embedding` columns have no
 * fixed size, so that a model switch needs no migration; an HNSW index needs one, so each model
 * gets a partial index on a cast to its size (`WHERE model = '<key>'`), made the first time the
 * model is used. A new model starts with no rows, so the index is built empty and filled as rows
 * are embedded; the bench builds one over 100,000 rows to measure a cold build. These indexes are
 * in the search_index schema, which Prisma does not model, so they are never migration drift.
 */
const log = createLogger("vector-index");

export type TEntryTable = "memory_entries" | "chunk_entries";

const ensured = new Set<string>();

export function vectorIndexName(table: TEntryTable, modelKey: string): string {
  return `${table}_hnsw_${createHash("sha256").update(modelKey).digest("hex").slice(0, 16)}`;
}

/** The expression the index is built on and every query orders by: they must match exactly. */
export function vectorExpression(modelKey: string, column = "embedding"): string {
  return `${column}::vector(${dimensionsOfModelKey(modelKey)})`;
}

export async function ensureVectorIndex(table: TEntryTable, modelKey: string, options: { maintenanceWorkMem?: string } = {}): Promise<void> {
  const name = vectorIndexName(table, modelKey);
  if (ensured.has(name)) return;
  const client = await dbPool().connect();
  try {
    const { rows } = await client.query(`SELECT 1 FROM pg_indexes WHERE schemaname = 'search_index' AND indexname = $1`, [name]);
    if (!rows.length) {
      const started = performance.now();
      // A build over existing rows (a restored database, the bench) is faster with room to sort in.
      await client.query(`SET maintenance_work_mem = ${pg.escapeLiteral(options.maintenanceWorkMem ?? "256MB")}`);
      try {
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${pg.escapeIdentifier(name)} ON search_index.${table} USING hnsw ((${vectorExpression(modelKey)}) vector_cosine_ops) WHERE model = ${pg.escapeLiteral(modelKey)}`,
        );
      } catch (error) {
        // Another process created it at the same moment.
        if (!["23505", "42P07"].includes((error as { code?: string }).code ?? "")) throw error;
      } finally {
        await client.query(`RESET maintenance_work_mem`);
      }
      log.info("vector index ready", { table, modelKey, ms: Math.round(performance.now() - started) });
    }
    ensured.add(name);
  } finally {
    client.release();
  }
}

/** Drops the indexes of models no row uses any more (after a re-embed). */
export async function dropUnusedVectorIndexes(table: TEntryTable, currentModelKey: string | undefined): Promise<string[]> {
  const { rows: used } = await dbPool().query<{ model: string }>(`SELECT DISTINCT model FROM search_index.${table} WHERE model IS NOT NULL`);
  const keep = new Set([...used.map((row) => row.model), ...(currentModelKey ? [currentModelKey] : [])].map((key) => vectorIndexName(table, key)));
  const { rows } = await dbPool().query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'search_index' AND tablename = $1 AND indexname LIKE $2`, [
    table,
    `${table}_hnsw_%`,
  ]);
  const dropped: string[] = [];
  for (const { indexname } of rows) {
    if (keep.has(indexname)) continue;
    await dbPool().query(`DROP INDEX IF EXISTS search_index.${pg.escapeIdentifier(indexname)}`);
    ensured.delete(indexname);
    dropped.push(indexname);
  }
  return dropped;
}

/** Forgets what this process ensured (tests that recreate databases). */
export function forgetEnsuredVectorIndexes(): void {
  ensured.clear();
}
