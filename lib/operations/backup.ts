import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import * as tar from "tar";
import { appVersion } from "@/lib/config/environment";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { AppError } from "@/lib/errors";
import { BACKUP_FORMAT, DATA_MEMBER, DATABASE_MEMBER, describeFile, MANIFEST_NAME, type TBackupManifest } from "./backup-archive";

/**
 * Writes one backup archive (backup-archive.ts) of the database and the data directory. For
 * PostgreSQL it runs `pg_dump --format=custom` (the server keeps serving; pg_dump reads one
 * consistent snapshot). The embedded database belongs to one process at a time, so its backup is
 * taken while the app is stopped: the data directory's lock refuses otherwise, with a clear message.
 */
export type TBackupOptions = {
  file: string;
  /** PostgreSQL; undefined: the embedded database in `dataDirectory`/pglite. */
  databaseUrl: string | undefined;
  dataDirectory: string;
  onProgress?: (line: string) => void;
};

/** Files of the data directory that are not part of a backup: the embedded database (dumped on its own) and the generated auth secret. */
export const NOT_BACKED_UP = new Set(["pglite", "pglite.lock", "pglite.password", "auth-secret"]);

/** Runs a PostgreSQL client program (pg_dump, pg_restore) and turns its failure into words. */
export function runPostgresTool(program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString("utf8")).slice(-4_000)));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(new AppError("unavailable", error.code === "ENOENT" ? `${program} is not installed: install PostgreSQL's client programs (Debian: postgresql-client-17, at least the server's version).` : error.message)),
    );
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new AppError("unavailable", `${program} failed: ${errors.trim().split("\n").slice(-3).join(" ") || `exit code ${code}`}`))));
  });
}

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
    );
    return rows.map((row) => row.migration_name);
  } finally {
    await client.end();
  }
}

async function dumpDatabase(options: TBackupOptions, work: string): Promise<TBackupManifest["database"]> {
  if (options.databaseUrl) {
    const file = path.join(work, DATABASE_MEMBER.postgres);
    options.onProgress?.("dumping the PostgreSQL database (pg_dump, custom format)");
    await runPostgresTool("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${options.databaseUrl}`]);
    return { kind: "postgres", migrations: await appliedMigrations(options.databaseUrl), member: await describeFile(DATABASE_MEMBER.postgres, file) };
  }
  options.onProgress?.("dumping the embedded database");
  let embedded;
  try {
    embedded = await startEmbeddedDatabase({ dataDirectory: path.join(options.dataDirectory, "pglite") });
  } catch (error) {
    throw new AppError("conflict", `cannot back up the embedded database: ${(error as Error).message} Stop the app first (the embedded database has one owner at a time).`);
  }
  try {
    const file = path.join(work, DATABASE_MEMBER.pglite);
    const dump = await embedded.pglite.dumpDataDir("gzip");
    await writeFile(file, Buffer.from(await dump.arrayBuffer()));
    return { kind: "pglite", migrations: await appliedMigrations(embedded.url), member: await describeFile(DATABASE_MEMBER.pglite, file) };
  } finally {
    await embedded.stop();
  }
}

export async function createBackup(options: TBackupOptions): Promise<TBackupManifest> {
  const work = await mkdtemp(path.join(os.tmpdir(), "xclaw-backup-"));
  try {
    const database = await dumpDatabase(options, work);
    options.onProgress?.(`archiving the data directory ${options.dataDirectory}`);
    // An install that never stored a file has no data directory yet: its archive is empty.
    await mkdir(options.dataDirectory, { recursive: true });
    const dataFile = path.join(work, DATA_MEMBER);
    await tar.create({ file: dataFile, gzip: true, cwd: options.dataDirectory, portable: true, filter: (entry) => !NOT_BACKED_UP.has(entry.split("/").filter((part) => part && part !== ".")[0] ?? "") }, ["."]);
    const manifest: TBackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: 1,
      createdAt: new Date().toISOString(),
      appVersion: appVersion(),
      database,
      data: await describeFile(DATA_MEMBER, dataFile),
    };
    await writeFile(path.join(work, MANIFEST_NAME), JSON.stringify(manifest, null, 2) + "\n");
    // Written beside the target and renamed: a failed backup never leaves a half archive under its name.
    const partial = `${options.file}.partial`;
    await tar.create({ file: partial, cwd: work, portable: true }, [MANIFEST_NAME, database.member.name, DATA_MEMBER]);
    await rename(partial, options.file);
    return manifest;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
