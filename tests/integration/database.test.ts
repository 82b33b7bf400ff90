import { describe, expect, it } from "vitest";
import { db, dbPool } from "@/lib/db/client";
import { checkDatabaseHealth } from "@/lib/db/health";
import { readMigrations } from "@/lib/db/migrate";

describe("database", () => {
  it("has pgvector: distances between vectors are computed", async () => {
    const { rows } = await dbPool().query<{ l2: number; cosine: number }>(
      `SELECT '[3,4]'::vector <-> '[0,0]'::vector AS l2, '[1,0]'::vector <=> '[0,1]'::vector AS cosine`,
    );
    expect(rows[0]).toEqual({ l2: 5, cosine: 1 });
  });

  it("reports its kind and vector support for /api/health", async () => {
    const health = await checkDatabaseHealth();
    expect(health).toEqual({ kind: process.env.XCLAW_TEST_DATABASE, vector: true });
  });

  it("records every migration in _prisma_migrations with Prisma's checksum", async () => {
    const migrations = await readMigrations();
    const { rows } = await dbPool().query<{ migration_name: string; checksum: string; applied_steps_count: number }>(
      `SELECT migration_name, checksum, applied_steps_count FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`,
    );
    expect(rows).toEqual(migrations.map((m) => ({ migration_name: m.name, checksum: m.checksum, applied_steps_count: 1 })));
  });

  it("starts each test file with an empty database of its own", async () => {
    expect(await db().user.count()).toBe(0);
  });
});
