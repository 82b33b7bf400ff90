import { describe, expect, it } from "vitest";
import { GET as adminStatusRoute } from "@/app/api/admin/memory/route";
import { POST as reembedRoute } from "@/app/api/admin/memory/reembed/route";
import { GET as listRoute, POST as createRoute } from "@/app/api/memories/route";
import { db, dbPool } from "@/lib/db/client";
import { enqueueCronRun } from "@/lib/jobs/cron-runs";
import { memoryJobs } from "@/lib/memory/jobs";
import { vectorSearch } from "@/lib/memory/search/hybrid-search";
import { vectorIndexName } from "@/lib/memory/search/vector-index";
import { semanticEmbeddingFor } from "../fake-llm/embeddings";
import { waitForRun } from "../support/jobs";
import { clearEmbeddingEnvironment, useFakeEmbeddings, setUpMemoryTestServices, writeMemoryTestConfig } from "../support/memory";
import { call, createUser } from "../support/http";

/**
 * Embedding providers over time: rows saved without a provider are embedded by the backfill once
 * one is configured, and a model switch never compares vectors of two models until the admin's
 * re-embed has run (then the old model's index is dropped).
 */
writeMemoryTestConfig();

const services = setUpMemoryTestServices({ jobs: true, chat: false });

async function entryModels(userId: string) {
  const { rows } = await dbPool().query<{ model: string | null }>(`SELECT model FROM search_index.memory_entries WHERE user_id = $1 ORDER BY model`, [userId]);
  return rows.map((row) => row.model);
}

describe("embedding providers and models", () => {
  it("embeds rows saved without a provider once one is configured (backfill)", async () => {
    clearEmbeddingEnvironment();
    const { cookie, user } = await createUser();
    await call(createRoute, "/api/memories", { cookie, body: { content: "The user runs PostgreSQL 15 on a small VPS." } });
    await call(createRoute, "/api/memories", { cookie, body: { content: "The user deploys with systemd units." } });
    expect(await entryModels(user.id)).toEqual([null, null]);

    useFakeEmbeddings(services.fake);
    const backfill = memoryJobs.find((job) => job.id === "memory.backfill")!;
    const { runIds } = await enqueueCronRun(backfill, { manualBy: "test" });
    services.runner.wake();
    const run = await waitForRun(runIds[0]!, ["COMPLETED", "FAILED"]);
    expect(run.error).toBeNull();
    expect(await entryModels(user.id)).toEqual([`fake-semantic-a@64`, `fake-semantic-a@64`]);
    const search = await call(listRoute, "/api/memories?query=database%20server", { cookie });
    expect(search.json.mode).toBe("hybrid");
  });

  it("never mixes two models' vectors: after a model switch old rows are found by full text only until the admin re-embed", async () => {
    const admin = await createUser({ role: "ADMIN" });
    const { cookie, user } = await createUser();
    const tea = (await call(createRoute, "/api/memories", { cookie, body: { content: "The user drinks oolong tea every afternoon." } })).json.memory;
    await call(createRoute, "/api/memories", { cookie, body: { content: "The user cycles to work." } });
    const oldIndex = vectorIndexName("memory_entries", "fake-semantic-a@64");

    useFakeEmbeddings(services.fake, "fake-semantic-b");
    const newKey = "fake-semantic-b@64";
    // A vector query of the new model sees none of the old model's rows…
    expect(await vectorSearch("memory_entries", { userId: user.id }, newKey, semanticEmbeddingFor("oolong tea afternoon", 64), 5)).toEqual([]);
    // …while search still finds them by their words.
    const byText = await call(listRoute, "/api/memories?query=oolong", { cookie });
    expect(byText.json.memories.map((memory: { id: string }) => memory.id)).toEqual([tea.id]);

    const before = await call(adminStatusRoute, "/api/admin/memory", { cookie: admin.cookie });
    expect(before.json).toMatchObject({ configured: true, modelKey: newKey });
    expect(before.json.memories.otherModel).toBeGreaterThanOrEqual(2);
    expect((await call(reembedRoute, "/api/admin/memory/reembed", { cookie, method: "POST" })).status).toBe(403);
    const started = await call(reembedRoute, "/api/admin/memory/reembed", { cookie: admin.cookie, method: "POST" });
    expect(started.status).toBe(202);
    const run = await waitForRun(started.json.runIds[0], ["COMPLETED", "FAILED"]);
    expect(run.status).toBe("COMPLETED");

    expect(await entryModels(user.id)).toEqual([newKey, newKey]);
    const nearest = await vectorSearch("memory_entries", { userId: user.id }, newKey, semanticEmbeddingFor("oolong tea afternoon", 64), 1);
    expect(nearest[0]!.id).toBe(tea.id);
    const after = await call(adminStatusRoute, "/api/admin/memory", { cookie: admin.cookie });
    expect(after.json.memories.otherModel).toBe(0);
    expect(after.json.memories.missing).toBe(0);
    // The old model's index went with its last row.
    const { rows } = await dbPool().query(`SELECT indexname FROM pg_indexes WHERE schemaname = 'search_index' AND indexname = $1`, [oldIndex]);
    expect(rows).toEqual([]);
  });

  it("removes a user's memories and vectors with the user", async () => {
    const { cookie, user } = await createUser();
    await call(createRoute, "/api/memories", { cookie, body: { content: "The user is learning Portuguese." } });
    expect(await entryModels(user.id)).toHaveLength(1);
    await db().user.delete({ where: { id: user.id } });
    expect(await entryModels(user.id)).toEqual([]);
  });
});
