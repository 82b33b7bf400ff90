/**
 * Memory search on both databases, measured in one run:
 *
 * - PostgreSQL: 100,000 vectors of 1,536 dimensions over 100 users (1% each), the HNSW index
 *   built over them (build time reported), then queries filtered to one user: recall@10 of the
 *   HNSW search against exact search (the same query with index scans off), and p50/p95 latency
 *   of vector, full-text and hybrid (both + reciprocal rank fusion) search, through the same
 *   functions the app uses (lib/memory/search/hybrid-search.ts).
 * - Embedded PGlite: the same with 10,000 vectors.
 *
 * The vectors are synthetic but clustered like real embeddings (points around 2,000 topic
 * centres; uniform random vectors in 1,536 dimensions are all nearly equidistant, which no
 * embedding model produces); queries are perturbed centres. Each row also has ~20 words from a
 * Zipf-distributed vocabulary for the full-text side. Rows go in as multi-row inserts of 500.
 *
 * Target (DESIGN.md): recall@10 ≥ 0.95 with p95 ≤ 20 ms on 100k vectors, filtered per user.
 *
 *   npm run bench:memory                       PGlite, and PostgreSQL when BENCH_POSTGRES_URL or
 *                                              TEST_DATABASE_URL is set
 *   npm run bench:memory -- 100000 10000 200   rows on PostgreSQL, rows on PGlite, queries
 */
import { randomUUID } from "node:crypto";
import { dbPool } from "../lib/db/client";
import { fuseRankings, lexicalSearch, vectorSearch, vectorSearchStatement } from "../lib/memory/search/hybrid-search";
import { searchableText, searchQuery } from "../lib/memory/search/search-text";
import { ensureVectorIndex, forgetEnsuredVectorIndexes } from "../lib/memory/search/vector-index";
import { onEachDatabase, percentile } from "./support";

process.env.XCLAW_LOG_SILENT ??= "1";
const postgresRows = Number(process.argv[2] ?? 100_000);
const pgliteRows = Number(process.argv[3] ?? 10_000);
const queries = Number(process.argv[4] ?? 200);
const DIMENSIONS = 1_536;
const USERS = 100;
const CENTRES = 2_000;
const MODEL_KEY = `bench-embedding@${DIMENSIONS}`;

// A seeded generator, so both databases get the same kind of data run after run.
let seed = 42;
function random(): number {
  seed = (seed * 1_664_525 + 1_013_904_223) >>> 0;
  return seed / 2 ** 32;
}
function gaussian(): number {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}
function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum) || 1;
  for (let index = 0; index < vector.length; index++) vector[index]! /= length;
  return vector;
}
const centres = Array.from({ length: CENTRES }, () => normalise(Float32Array.from({ length: DIMENSIONS }, gaussian)));
function around(centre: Float32Array, spread: number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  const noise = spread / Math.sqrt(DIMENSIONS);
  for (let index = 0; index < DIMENSIONS; index++) vector[index] = centre[index]! + gaussian() * noise;
  return normalise(vector);
}
function vectorText(vector: Float32Array): string {
  return `[${Array.from(vector, (value) => Math.round(value * 1e5) / 1e5).join(",")}]`;
}

const VOCABULARY = Array.from({ length: 5_000 }, (_, index) => `w${index.toString(36)}${["alpha", "beta", "gamma", "delta", "omega"][index % 5]}`);
function zipfWord(): string {
  return VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY.length)) - 1))]!;
}
function words(count: number): string {
  return Array.from({ length: count }, zipfWord).join(" ");
}

async function load(rows: number): Promise<{ users: string[]; loadMs: number }> {
  const users = Array.from({ length: USERS }, () => randomUUID());
  await dbPool().query(`INSERT INTO "users" ("id", "email", "passwordHash", "updatedAt") SELECT id, id::text || '@bench.example', 'x', now() FROM unnest($1::uuid[]) AS id`, [users]);
  const started = performance.now();
  const batch = 500;
  for (let start = 0; start < rows; start += batch) {
    const ids: string[] = [];
    const owners: string[] = [];
    const vectors: string[] = [];
    const texts: string[] = [];
    for (let index = start; index < Math.min(rows, start + batch); index++) {
      ids.push(randomUUID());
      owners.push(users[index % USERS]!);
      vectors.push(vectorText(around(centres[Math.floor(random() * CENTRES)]!, 0.6)));
      texts.push(searchableText(words(20)));
    }
    await dbPool().query(
      `INSERT INTO "memories" ("id", "userId", "content", "origin", "contentHash", "updatedAt")
       SELECT id, user_id, 'bench', 'USER', id::text, now() FROM unnest($1::uuid[], $2::uuid[]) AS input(id, user_id)`,
      [ids, owners],
    );
    await dbPool().query(
      `INSERT INTO search_index.memory_entries (memory_id, user_id, model, embedding, search)
       SELECT id, user_id, $3, embedding::vector, to_tsvector('english', text) FROM unnest($1::uuid[], $2::uuid[], $4::text[], $5::text[]) AS input(id, user_id, embedding, text)`,
      [ids, owners, MODEL_KEY, vectors, texts],
    );
    if ((start / batch) % 20 === 19) process.stdout.write(`  loaded ${start + batch} rows (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await dbPool().query("ANALYZE search_index.memory_entries");
  return { users, loadMs: performance.now() - started };
}

/** The exact top 10: the same statement with index scans off (a sequential scan of the user's rows). */
async function exactTop(userId: string, query: Float32Array): Promise<string[]> {
  const statement = vectorSearchStatement("memory_entries", { userId }, MODEL_KEY, [...query], 10);
  const client = await dbPool().connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL enable_indexscan = off");
    await client.query("SET LOCAL enable_bitmapscan = off");
    const { rows } = await client.query<{ id: string }>(statement.text, statement.values);
    await client.query("COMMIT");
    return rows.map((row) => row.id);
  } finally {
    client.release();
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

async function measure(label: string, rows: number) {
  console.log(`\n${label}: ${rows.toLocaleString("en")} vectors of ${DIMENSIONS} dimensions over ${USERS} users`);
  forgetEnsuredVectorIndexes();
  const { users, loadMs } = await load(rows);
  console.log(`  load (multi-row inserts of 500): ${(loadMs / 1000).toFixed(1)} s`);
  const build = await timed(() => ensureVectorIndex("memory_entries", MODEL_KEY, { maintenanceWorkMem: "1GB" }));
  console.log(`  HNSW index build (m=16, ef_construction=64, cosine): ${(build.ms / 1000).toFixed(1)} s`);
  const explain = async (hnswOnly: boolean) => {
    const statement = vectorSearchStatement("memory_entries", { userId: users[0]! }, MODEL_KEY, [...centres[0]!], 10);
    const client = await dbPool().connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
      if (hnswOnly) await client.query("SET LOCAL enable_seqscan = off");
      const { rows: lines } = await client.query(`EXPLAIN ${statement.text}`, statement.values);
      await client.query("COMMIT");
      return lines.map((line) => line["QUERY PLAN"] as string).find((line) => /Scan/.test(line) && !/CTE Scan/.test(line))?.trim();
    } finally {
      client.release();
    }
  };
  /** The app's vector search, or the same statement with the HNSW index as the only way in. */
  const hnswSearch = async (userId: string, query: Float32Array, limit: number) => {
    const statement = vectorSearchStatement("memory_entries", { userId }, MODEL_KEY, [...query], limit);
    const client = await dbPool().connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '100', true)`);
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows: found } = await client.query<{ id: string }>(statement.text, statement.values);
      await client.query("COMMIT");
      return found;
    } finally {
      client.release();
    }
  };
  const line = (name: string, values: number[]) => console.log(`    ${name.padEnd(9)} p50 ${percentile(values, 50).toFixed(2).padStart(7)} ms   p95 ${percentile(values, 95).toFixed(2).padStart(7)} ms`);

  // The same queries for both passes.
  const workload = Array.from({ length: queries }, (_, index) => ({
    userId: users[index % USERS]!,
    query: around(centres[Math.floor(random() * CENTRES)]!, 0.3),
    text: searchQuery(words(3))!,
  }));
  const exact = new Map<number, string[]>();
  for (const [index, item] of workload.entries()) exact.set(index, await exactTop(item.userId, item.query));

  console.log(`  ${queries} queries, each filtered to one user (1% of the rows)`);
  console.log(`  a) as the app runs them (the planner picks; plan: ${await explain(false)}):`);
  const vectorMs: number[] = [];
  const lexicalMs: number[] = [];
  const hybridMs: number[] = [];
  let recallSum = 0;
  let returnedSum = 0;
  for (const [index, { userId, query, text }] of workload.entries()) {
    const vector = await timed(() => vectorSearch("memory_entries", { userId }, MODEL_KEY, [...query], 10));
    vectorMs.push(vector.ms);
    returnedSum += vector.value.length;
    recallSum += vector.value.filter((hit) => exact.get(index)!.includes(hit.id)).length / Math.max(1, Math.min(10, exact.get(index)!.length));
    lexicalMs.push((await timed(() => lexicalSearch("memory_entries", { userId }, text, 40))).ms);
    hybridMs.push(
      (
        await timed(async () => {
          const byVector = await vectorSearch("memory_entries", { userId }, MODEL_KEY, [...query], 40);
          const byText = await lexicalSearch("memory_entries", { userId }, text, 40);
          return [...fuseRankings([byVector, byText]).entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
        })
      ).ms,
    );
  }
  console.log(`    recall@10 vs exact: ${(recallSum / queries).toFixed(3)}   rows returned: ${(returnedSum / queries).toFixed(1)} of 10`);
  line("vector", vectorMs);
  line("full-text", lexicalMs);
  line("hybrid", hybridMs);

  // b) The HNSW path alone: without the per-user B-tree and with sequential scans off.
  await dbPool().query("DROP INDEX search_index.memory_entries_user_idx");
  console.log(`  b) through the HNSW index with the iterative scan (plan: ${await explain(true)}):`);
  const hnswMs: number[] = [];
  let hnswRecall = 0;
  let hnswReturned = 0;
  for (const [index, { userId, query }] of workload.entries()) {
    const found = await timed(() => hnswSearch(userId, query, 10));
    hnswMs.push(found.ms);
    hnswReturned += found.value.length;
    hnswRecall += found.value.filter((hit) => exact.get(index)!.includes(hit.id)).length / Math.max(1, Math.min(10, exact.get(index)!.length));
  }
  console.log(`    recall@10 vs exact: ${(hnswRecall / queries).toFixed(3)}   rows returned: ${(hnswReturned / queries).toFixed(1)} of 10`);
  line("vector", hnswMs);
  return { recall: recallSum / queries, vectorP95: percentile(vectorMs, 95), buildMs: build.ms, hnswRecall: hnswRecall / queries, hnswP95: percentile(hnswMs, 95) };
}

const results = await onEachDatabase("xclaw_bench_memory", (label, database) => measure(label, database === "postgres" ? postgresRows : pgliteRows), {
  postgresFirst: true,
  skip: { postgres: postgresRows <= 0, pglite: pgliteRows <= 0 },
});

if (results.postgres) {
  const pass = results.postgres.recall >= 0.95 && results.postgres.vectorP95 <= 20;
  console.log(`\n  target on PostgreSQL (recall@10 ≥ 0.95, p95 ≤ 20 ms), as the app runs: ${pass ? "met" : "NOT met"}; HNSW path: recall ${results.postgres.hnswRecall.toFixed(3)}, p95 ${results.postgres.hnswP95.toFixed(1)} ms`);
}
process.exit(0);
