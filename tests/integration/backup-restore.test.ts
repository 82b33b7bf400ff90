import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl, disconnectDatabase } from "@/lib/db/client";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { migrateDatabase } from "@/lib/db/migrate";
import { saveMemory } from "@/lib/memory/memories/memory-store";
import { createBackup } from "@/lib/operations/backup";
import { restoreBackup } from "@/lib/operations/restore";
import { createSession } from "@/lib/sessions/sessions";
import { recordStep } from "@/lib/sessions/steps";
import { createUser } from "../support/http";

/**
 * backup → a new, empty database and data directory → restore: the same sessions, steps,
 * memories and workspace files (compared row by row and by checksum). PostgreSQL goes through
 * pg_dump / pg_restore (the PostgreSQL pass); the embedded database through its own dump, with
 * the app stopped (both passes: it uses a data directory of its own). A restore refuses a
 * database or data directory that is not empty, and an archive whose checksums do not match.
 */
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "xclaw-backup-test-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A user with a session, steps, a memory and workspace files, written through the domain code. */
async function seed(dataDirectory: string): Promise<{ userId: string; files: Record<string, string> }> {
  const { user } = await createUser();
  const session = await createSession({ userId: user.id, title: "Backed up" });
  await recordStep({ sessionId: session.id, userId: user.id, type: "USER_INPUT", name: "user", status: "COMPLETED", input: { text: "remember the cherries" } });
  await recordStep({ sessionId: session.id, userId: user.id, type: "SYSTEM_NOTE", name: "note", status: "COMPLETED", input: { text: "混合文本 with ünïcode" } });
  await saveMemory({ userId: user.id, content: "The user's favourite fruit is cherries.", origin: "USER" });
  const files = { "notes/plan.md": "# Plan\n\nstep one\n", "data/numbers.csv": Array.from({ length: 2_000 }, (_, index) => `${index},${index * index}`).join("\n") };
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dataDirectory, "workspaces", user.id, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { userId: user.id, files };
}

/** What must survive, read straight from the database. */
async function snapshot(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows;
    return {
      users: await rows(`SELECT id, email, role FROM users ORDER BY id`),
      sessions: await rows(`SELECT id, "userId", title, status FROM chat_sessions ORDER BY id`),
      steps: await rows(`SELECT id, "sessionId", seq, type, name, input FROM steps ORDER BY "sessionId", seq`),
      memories: await rows(`SELECT id, "userId", content FROM memories ORDER BY id`),
      migrations: await rows(`SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`),
    };
  } finally {
    await client.end();
  }
}

async function checksums(dataDirectory: string, userId: string, files: Record<string, string>) {
  return Object.fromEntries(
    await Promise.all(Object.keys(files).map(async (name) => [name, createHash("sha256").update(await readFile(path.join(dataDirectory, "workspaces", userId, name))).digest("hex")])),
  );
}

async function expectRefused(promise: Promise<unknown>, message: RegExp) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(message);
}

describe.runIf(process.env.XCLAW_TEST_DATABASE === "postgres")("PostgreSQL (pg_dump / pg_restore)", () => {
  it("restores the same sessions, steps, memories and files into an empty database, and refuses a non-empty one", { timeout: 180_000 }, async () => {
    const dataDirectory = path.join(scratch, "pg-data");
    const restoredDirectory = path.join(scratch, "pg-restored");
    const { userId, files } = await seed(dataDirectory);
    const before = await snapshot(databaseUrl());
    const archive = path.join(scratch, "pg.xclaw-backup");
    const manifest = await createBackup({ file: archive, databaseUrl: databaseUrl(), dataDirectory });
    expect(manifest.database.kind).toBe("postgres");
    expect(manifest.database.migrations).toEqual(before.migrations.map((row) => row.migration_name));

    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = `xclaw_restore_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const target = new URL(process.env.TEST_DATABASE_URL!);
    target.pathname = `/${name}`;
    try {
      // The database this test runs on is not empty: refused, and nothing written.
      await expectRefused(restoreBackup({ file: archive, databaseUrl: databaseUrl(), dataDirectory: restoredDirectory }), /not empty/);
      await restoreBackup({ file: archive, databaseUrl: target.toString(), dataDirectory: restoredDirectory });
      expect(await snapshot(target.toString())).toEqual(before);
      expect(await checksums(restoredDirectory, userId, files)).toEqual(await checksums(dataDirectory, userId, files));
      // Restoring again finds both the database and the data directory taken.
      await expectRefused(restoreBackup({ file: archive, databaseUrl: target.toString(), dataDirectory: path.join(scratch, "other") }), /not empty/);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe("the embedded database (app stopped)", () => {
  it("restores the same sessions, steps, memories and files into an empty data directory", { timeout: 300_000 }, async () => {
    const dataDirectory = path.join(scratch, "embedded-data");
    const restoredDirectory = path.join(scratch, "embedded-restored");
    const saved = process.env.DATABASE_URL;
    let embedded = await startEmbeddedDatabase({ dataDirectory: path.join(dataDirectory, "pglite") });
    let seeded: Awaited<ReturnType<typeof seed>>;
    let before: Awaited<ReturnType<typeof snapshot>>;
    try {
      await migrateDatabase(embedded.url);
      await disconnectDatabase();
      process.env.DATABASE_URL = embedded.url;
      seeded = await seed(dataDirectory);
      before = await snapshot(embedded.url);
    } finally {
      await disconnectDatabase();
      process.env.DATABASE_URL = saved;
      await embedded.stop();
    }
    // While an app (another live process) holds the database, a backup is refused with a reason
    // instead of a torn copy: the data directory's lock names its owner.
    const lock = path.join(dataDirectory, "pglite.lock");
    await writeFile(lock, String(process.ppid));
    await expectRefused(createBackup({ file: path.join(scratch, "refused"), databaseUrl: undefined, dataDirectory }), /Stop the app first/);
    await rm(lock);
    const archive = path.join(scratch, "embedded.xclaw-backup");
    const manifest = await createBackup({ file: archive, databaseUrl: undefined, dataDirectory });
    expect(manifest.database.kind).toBe("pglite");

    // A PostgreSQL target for an embedded backup is refused with what to do instead.
    await expectRefused(restoreBackup({ file: archive, databaseUrl: "postgresql://postgres@127.0.0.1:1/none", dataDirectory: restoredDirectory }), /DATABASE_URL unset/);
    await restoreBackup({ file: archive, databaseUrl: undefined, dataDirectory: restoredDirectory });
    embedded = await startEmbeddedDatabase({ dataDirectory: path.join(restoredDirectory, "pglite") });
    try {
      expect(await snapshot(embedded.url)).toEqual(before);
    } finally {
      await embedded.stop();
    }
    expect(await checksums(restoredDirectory, seeded.userId, seeded.files)).toEqual(await checksums(dataDirectory, seeded.userId, seeded.files));
  });

  it("refuses an archive whose contents do not match its checksums, and a file that is no backup", { timeout: 60_000 }, async () => {
    const archive = path.join(scratch, "embedded.xclaw-backup");
    const unpacked = path.join(scratch, "tampered");
    await mkdir(unpacked, { recursive: true });
    await tar.extract({ file: archive, cwd: unpacked });
    await writeFile(path.join(unpacked, "data.tar.gz"), "not the original");
    const tampered = path.join(scratch, "tampered.xclaw-backup");
    await tar.create({ file: tampered, cwd: unpacked }, ["manifest.json", "database.pglite.tar.gz", "data.tar.gz"]);
    await expectRefused(restoreBackup({ file: tampered, databaseUrl: undefined, dataDirectory: path.join(scratch, "never") }), /does not match its checksum/);
    const notBackup = path.join(scratch, "plain.txt");
    await writeFile(notBackup, "hello");
    await expectRefused(restoreBackup({ file: notBackup, databaseUrl: undefined, dataDirectory: path.join(scratch, "never") }), /not a backup archive|not an xclaw backup/);
  });
});
