import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl, db } from "@/lib/db/client";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";

/**
 * The operators' commands as operators run them (`npm run xclaw -- <command>`): real processes
 * with an environment of their own, against this test's database and the fake model server.
 * doctor exits 0 on a healthy install and names each problem on a broken one (a weak secret, an
 * unreachable provider, a database without pgvector or migrations); create-admin prints a
 * one-time link; backup writes one archive.
 */
const root = path.resolve(import.meta.dirname, "../..");
let fake: TFakeLlm;
let directory: string;
let config: string;

beforeAll(async () => {
  fake = await startFakeLlm();
  directory = await mkdtemp(path.join(os.tmpdir(), "xclaw-operator-"));
  config = path.join(directory, "xclaw.yaml");
  // No browser worker to look for; everything else as shipped.
  await writeFile(config, "browser:\n  worker: off\n");
});
afterAll(async () => {
  await fake.close();
  await rm(directory, { recursive: true, force: true });
});

const STRONG_SECRET = "operator-commands-test-secret-0123456789abcdef";

async function xclaw(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const environment: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl(),
    NEXTAUTH_SECRET: STRONG_SECRET,
    NEXTAUTH_URL: "https://xclaw.example.test",
    OPENAI_BASE_URL: fake.openaiBaseUrl,
    OPENAI_API_KEY: "operator-test",
    XCLAW_CONFIG: config,
    XCLAW_DATA_DIR: path.join(directory, "data"),
    XCLAW_LOG_SILENT: "1",
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/xclaw/main.ts", ...args], { cwd: root, env: environment as NodeJS.ProcessEnv, encoding: "utf8", timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("doctor", () => {
  it("passes on a healthy install", { timeout: 150_000 }, async () => {
    const result = await xclaw(["doctor"]);
    expect(result.stdout).toContain("All checks passed.");
    expect(result.stdout).toMatch(/ok\s+database\s+PostgreSQL/);
    expect(result.stdout).toMatch(/ok\s+pgvector/);
    expect(result.stdout).toMatch(/ok\s+migrations/);
    expect(result.stdout).toMatch(/ok\s+provider openai/);
    expect(result.code).toBe(0);
  });

  it("names each problem of a broken install, one line each, and exits non-zero", { timeout: 150_000 }, async () => {
    const result = await xclaw(["doctor"], { NEXTAUTH_SECRET: "too-short", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" });
    expect(result.code).not.toBe(0);
    const problems = result.stdout.split("\n").filter((line) => line.startsWith("problem"));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/secrets\s+NEXTAUTH_SECRET is too short/);
    expect(problems[1]).toMatch(/provider openai\s+127\.0\.0\.1:1 is unreachable/);
    expect(result.stdout).toContain("2 problems found.");
  });

  it.runIf(process.env.XCLAW_TEST_DATABASE === "postgres")("finds a database without pgvector and migrations", { timeout: 150_000 }, async () => {
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = `xclaw_doctor_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      const result = await xclaw(["doctor"], { DATABASE_URL: url.toString() });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toMatch(/problem\s+pgvector\s+pgvector .* is on the server but not in this database/);
      expect(result.stdout).toMatch(/problem\s+migrations\s+\d+ pending/);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe("create-admin and backup", () => {
  it("create-admin prints a one-time link for a new admin, and promotes an existing account", { timeout: 150_000 }, async () => {
    const email = `operator-${Date.now()}@example.com`;
    const created = await xclaw(["create-admin", email]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created the admin ${email}.`);
    expect(created.stdout).toMatch(/https:\/\/xclaw\.example\.test\/set-password\/[A-Za-z0-9_-]{43}/);
    expect(await db().user.findUnique({ where: { email }, select: { role: true } })).toEqual({ role: "ADMIN" });
    await db().user.update({ where: { email }, data: { role: "USER" } });
    const again = await xclaw(["create-admin", email.toUpperCase()]);
    expect(again.stdout).toContain(`Made an admin of ${email}.`);
    expect(await db().user.findUnique({ where: { email }, select: { role: true } })).toEqual({ role: "ADMIN" });
    expect((await xclaw(["create-admin", "not-an-email"])).code).not.toBe(0);
  });

  it.runIf(process.env.XCLAW_TEST_DATABASE === "postgres")("backup writes one archive", { timeout: 150_000 }, async () => {
    const file = path.join(directory, "nightly.xclaw-backup");
    const result = await xclaw(["backup", file]);
    expect(result.stderr).toContain("dumping the PostgreSQL database");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Backup written to ${file}`);
    expect((await stat(file)).size).toBeGreaterThan(1_000);
  });
});
