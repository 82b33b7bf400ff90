import { randomUUID } from "node:crypto";
import pgvector from "pgvector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbPool, disconnectDatabase } from "@/lib/db/client";
import { vectorSearch, vectorSearchStatement } from "@/lib/memory/search/hybrid-search";
import { ensureVectorIndex, vectorIndexName } from "@/lib/memory/search/vector-index";
import { writeMemoryTestConfig } from "../support/memory";

/**
 * A user who owns 1% of the rows still gets k nearest rows through the HNSW index: a filter on an
 * HNSW scan is applied to the rows the index returns, so without pgvector's iterative scan the same
 * statement returns fewer. At this test's size the planner would rather scan the table or the
 * user's rows (which is exact and proves nothing), so sequential scans are turned off for this
 * file's database and the per-user B-tree index is dropped.
 */
writeMemoryTestConfig();

beforeAll(async () => {
  if (process.env.XCLAW_TEST_DATABASE === "postgres") {
    const { rows } = await dbPool().query<{ name: string }>("SELECT current_database() AS name");
    await dbPool().query(`ALTER DATABASE "${rows[0]!.name}" SET enable_seqscan = off`);
    // New connections pick the setting up.
    await disconnectDatabase();
  } else {
    // The embedded database has one session, shared by every connection.
    await dbPool().query("SET enable_seqscan = off");
  }
});
afterAll(async () => {
  if (process.env.XCLAW_TEST_DATABASE !== "postgres") await dbPool().query("RESET enable_seqscan");
});

const DIMENSIONS = 32;

function randomVector(): number[] {
  const values = Array.from({ length: DIMENSIONS }, () => Math.random() * 2 - 1);
  const length = Math.hypot(...values);
  return values.map((value) => value / length);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += a[index]! * b[index]!;
  return dot;
}

describe("per-user filtered vector search", () => {
  it("returns k rows through the HNSW index when the user owns 1% of the rows (and fewer without the iterative scan)", async () => {
    const modelKey = `filter-test@${DIMENSIONS}`;
    const users = Array.from({ length: 100 }, () => randomUUID());
    await dbPool().query(
      `INSERT INTO "users" ("id", "email", "passwordHash", "updatedAt") SELECT id, id::text || '@example.com', 'x', now() FROM unnest($1::uuid[]) AS id`,
      [users],
    );
    const rows: { id: string; userId: string; vector: number[] }[] = [];
    for (const userId of users) for (let index = 0; index < 40; index++) rows.push({ id: randomUUID(), userId, vector: randomVector() });
    for (let start = 0; start < rows.length; start += 1_000) {
      const slice = rows.slice(start, start + 1_000);
      await dbPool().query(
        `INSERT INTO "memories" ("id", "userId", "content", "origin", "contentHash", "updatedAt")
         SELECT id, user_id, 'fact ' || id::text, 'USER', id::text, now() FROM unnest($1::uuid[], $2::uuid[]) AS input(id, user_id)`,
        [slice.map((row) => row.id), slice.map((row) => row.userId)],
      );
      await dbPool().query(
        `INSERT INTO search_index.memory_entries (memory_id, user_id, model, embedding, search)
         SELECT id, user_id, $3, embedding::vector, ''::tsvector FROM unnest($1::uuid[], $2::uuid[], $4::text[]) AS input(id, user_id, embedding)`,
        [slice.map((row) => row.id), slice.map((row) => row.userId), modelKey, slice.map((row) => pgvector.toSql(row.vector))],
      );
    }
    await ensureVectorIndex("memory_entries", modelKey);
    // With only 40 rows a user, the planner rightly prefers the exact path through the user's
    // B-tree index; this test is about the HNSW path, so that index goes (in this file's database).
    await dbPool().query("DROP INDEX search_index.memory_entries_user_idx");
    await dbPool().query("ANALYZE search_index.memory_entries");

    const owner = users[17]!;
    const query = randomVector();
    const exact = rows
      .filter((row) => row.userId === owner)
      .sort((a, b) => cosine(query, b.vector) - cosine(query, a.vector))
      .slice(0, 10)
      .map((row) => row.id);

    const found = await vectorSearch("memory_entries", { userId: owner }, modelKey, query, 10);
    expect(found).toHaveLength(10);
    const ownerIds = new Set(rows.filter((row) => row.userId === owner).map((row) => row.id));
    expect(found.every((hit) => ownerIds.has(hit.id))).toBe(true);
    const recall = found.filter((hit) => exact.includes(hit.id)).length / 10;
    expect(recall).toBeGreaterThanOrEqual(0.9);
    // Ordered by similarity, highest first.
    expect(found.map((hit) => hit.similarity)).toEqual([...found.map((hit) => hit.similarity)].sort((a, b) => b - a));

    // The same statement, planned and run the way the search runs it: it uses the HNSW index…
    const statement = vectorSearchStatement("memory_entries", { userId: owner }, modelKey, query, 10);
    const client = await dbPool().connect();
    try {
      await client.query("BEGIN");
      await client.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '40', true)`);
      const plan = (await client.query(`EXPLAIN ${statement.text}`, statement.values)).rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(plan).toContain(vectorIndexName("memory_entries", modelKey));
      await client.query("ROLLBACK");
      // …and without the iterative scan the index hands back the globally nearest 40, of which
      // this user owns about one: the 1%-selective filter leaves fewer than 10.
      await client.query("BEGIN");
      await client.query(`SELECT set_config('hnsw.iterative_scan', 'off', true), set_config('hnsw.ef_search', '40', true)`);
      const withoutIterativeScan = (await client.query(statement.text, statement.values)).rows;
      await client.query("ROLLBACK");
      expect(withoutIterativeScan.length).toBeLessThan(10);
    } finally {
      client.release();
    }
  });
});

