import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { resetEnvironment } from "@/lib/config/environment";
import { databaseUrl, disconnectDatabase } from "@/lib/db/client";
import { DatabaseAheadError, migrateDatabase, readMigrations } from "@/lib/db/migrate";
import { call } from "../support/http";

describe("GET /api/health", () => {
  it("reports the database kind, vector support and the version", async () => {
    const response = await call(health, "/api/health");
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      status: "ok",
      database: { kind: process.env.XCLAW_TEST_DATABASE, vector: true },
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });

  it("answers 503 with a reason when the database is unreachable", async () => {
    const saved = process.env.DATABASE_URL!;
    await disconnectDatabase();
    process.env.DATABASE_URL = "postgresql://postgres@127.0.0.1:1/unreachable";
    resetEnvironment();
    try {
      const response = await call(health, "/api/health");
      expect(response.status).toBe(503);
      expect(response.json.status).toBe("unavailable");
      expect(response.json.reason).toMatch(/^database unreachable: /);
    } finally {
      await disconnectDatabase();
      process.env.DATABASE_URL = saved;
      resetEnvironment();
    }
    expect((await call(health, "/api/health")).status).toBe(200);
  });
});

describe("migrations", () => {
  it("are idempotent: a second run applies nothing", async () => {
    await disconnectDatabase();
    const result = await migrateDatabase(databaseUrl());
    expect(result.applied).toEqual([]);
    expect(result.alreadyApplied).toBeGreaterThan(0);
  });

  it("are seen as applied by the real Prisma CLI (prisma migrate status)", { timeout: 60_000 }, async () => {
    await disconnectDatabase();
    // Asynchronously: the embedded database is served from this very process.
    const result = await promisify(execFile)(process.execPath, ["scripts/prisma.mjs", "migrate", "status"], {
      env: { ...process.env, DATABASE_URL: databaseUrl() },
      encoding: "utf8",
      timeout: 55_000,
    });
    expect(result.stdout + result.stderr).toContain("Database schema is up to date!");
  });
});

describe.runIf(process.env.XCLAW_TEST_DATABASE === "postgres")("migrations applied by Prisma itself", () => {
  it("are skipped by our migrator (prisma migrate deploy, then npm run db:migrate)", { timeout: 60_000 }, async () => {
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = `xclaw_prisma_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      await promisify(execFile)(process.execPath, ["scripts/prisma.mjs", "migrate", "deploy"], {
        env: { ...process.env, DATABASE_URL: url.toString() },
        timeout: 55_000,
      });
      const result = await migrateDatabase(url.toString());
      expect(result.applied).toEqual([]);
      expect(result.alreadyApplied).toBeGreaterThan(0);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe("a database migrated by a newer version", () => {
  it("refuses to migrate or start, naming the migrations this version does not know", async () => {
    await disconnectDatabase();
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ('00000000-0000-4000-8000-000000000001', 'x', '29991231000000_from_the_future', now(), now(), 1)`,
      );
      const refused = await migrateDatabase(databaseUrl()).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DatabaseAheadError);
      expect((refused as Error).message).toContain("29991231000000_from_the_future");
      expect((refused as Error).message).toMatch(/newer version of xclaw/);
    } finally {
      await client.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = '29991231000000_from_the_future'`);
      await client.end();
    }
    expect((await migrateDatabase(databaseUrl())).applied).toEqual([]);
  });
});

describe.runIf(process.env.XCLAW_TEST_DATABASE === "postgres")("three app processes starting at once", () => {
  it("migrate a fresh database once: one applies every migration, the others find it up to date", { timeout: 120_000 }, async () => {
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = `xclaw_concurrent_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      // The same command a production start runs (npm run db:migrate and the launcher share migrateDatabase).
      const outputs = await Promise.all(
        [1, 2, 3].map(() =>
          promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], { env: { ...process.env, DATABASE_URL: url.toString() }, encoding: "utf8", timeout: 110_000 }).then(
            (result) => result.stdout,
          ),
        ),
      );
      const migrations = (await readMigrations()).length;
      const applying = outputs.filter((output) => output.includes(`applied ${migrations} migration(s)`));
      expect(applying).toHaveLength(1);
      expect(outputs.filter((output) => output.includes("database is up to date"))).toHaveLength(2);
      const check = new pg.Client({ connectionString: url.toString() });
      await check.connect();
      const { rows } = await check.query<{ count: number }>(`SELECT count(*)::int AS count FROM "_prisma_migrations"`);
      await check.end();
      expect(rows[0]!.count).toBe(migrations);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
