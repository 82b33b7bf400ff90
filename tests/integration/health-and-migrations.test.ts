import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { resetEnvironment } from "@/lib/config/environment";
import { databaseUrl, disconnectDatabase } from "@/lib/db/client";
import { migrateDatabase } from "@/lib/db/migrate";
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
