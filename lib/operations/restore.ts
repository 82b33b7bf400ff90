import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import * as tar from "tar";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { AppError } from "@/lib/errors";
import { DATA_MEMBER, describeFile, MANIFEST_NAME, ZBackupManifest, type TBackupManifest } from "./backup-archive";
import { NOT_BACKED_UP, runPostgresTool } from "./backup";

/**
 * Restores a backup archive (backup-archive.ts) into an empty database and data directory, and
 * refuses anything else: a restore never merges with or overwrites data. Every member's checksum
 * is verified before anything is written.
 */
export type TRestoreOptions = {
  file: string;
  /** The empty PostgreSQL database to restore into; undefined: the embedded database in `dataDirectory`. */
  databaseUrl: string | undefined;
  dataDirectory: string;
  onProgress?: (line: string) => void;
};

async function readVerified(file: string, work: string): Promise<TBackupManifest> {
  try {
    await tar.extract({ file, cwd: work, strict: true, filter: (entry) => !entry.includes("/") && !entry.startsWith(".") });
  } catch (error) {
    throw new AppError("bad_request", `${file} is not a backup archive: ${(error as Error).message}`);
  }
  let manifest: TBackupManifest;
  try {
    manifest = ZBackupManifest.parse(JSON.parse(await readFile(path.join(work, MANIFEST_NAME), "utf8")));
  } catch {
    throw new AppError("bad_request", `${file} is not an xclaw backup (its manifest is missing or not one this version reads).`);
  }
  for (const member of [manifest.database.member, manifest.data]) {
    const actual = await describeFile(member.name, path.join(work, member.name)).catch(() => undefined);
    if (!actual || actual.sha256 !== member.sha256 || actual.bytes !== member.bytes) {
      throw new AppError("bad_request", `${member.name} in ${file} does not match its checksum: the archive is damaged or was changed. Nothing was restored.`);
    }
  }
  return manifest;
}

/** The database must hold nothing: no table in any schema but the system's. */
async function assertEmptyPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new AppError("unavailable", `cannot reach DATABASE_URL: ${(error as Error).message}`);
  }
  try {
    const { rows } = await client.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    if (rows[0]!.count > 0) {
      throw new AppError("conflict", `the database named by DATABASE_URL is not empty (${rows[0]!.count} tables). Restore only into a new, empty database (createdb), then point DATABASE_URL at it.`);
    }
  } finally {
    await client.end();
  }
}

/** The data directory may exist, but hold nothing a backup would bring (an auth secret may be there). */
async function assertEmptyDataDirectory(directory: string, embedded: boolean): Promise<void> {
  const entries = await readdir(directory).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : Promise.reject(error)));
  const taken = entries.filter((name) => !(name === "auth-secret" || (!embedded && NOT_BACKED_UP.has(name))));
  if (taken.length) {
    throw new AppError("conflict", `the data directory ${directory} is not empty (${taken.slice(0, 5).join(", ")}${taken.length > 5 ? ", …" : ""}). Restore into an empty XCLAW_DATA_DIR.`);
  }
}

export async function restoreBackup(options: TRestoreOptions): Promise<TBackupManifest> {
  const work = await mkdtemp(path.join(os.tmpdir(), "xclaw-restore-"));
  try {
    const manifest = await readVerified(options.file, work);
    const kind = options.databaseUrl ? "postgres" : "pglite";
    if (manifest.database.kind !== kind) {
      throw new AppError(
        "bad_request",
        manifest.database.kind === "pglite"
          ? "this backup is of an embedded database: restore it with DATABASE_URL unset (into an empty XCLAW_DATA_DIR)."
          : "this backup is of a PostgreSQL database: set DATABASE_URL to a new, empty PostgreSQL database to restore it.",
      );
    }
    if (options.databaseUrl) await assertEmptyPostgres(options.databaseUrl);
    await assertEmptyDataDirectory(options.dataDirectory, kind === "pglite");
    const dump = path.join(work, manifest.database.member.name);
    if (options.databaseUrl) {
      options.onProgress?.("restoring the PostgreSQL database (pg_restore)");
      await runPostgresTool("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", `--dbname=${options.databaseUrl}`, dump]);
    } else {
      options.onProgress?.("restoring the embedded database");
      await mkdir(options.dataDirectory, { recursive: true });
      const embedded = await startEmbeddedDatabase({ dataDirectory: path.join(options.dataDirectory, "pglite"), loadDataDir: new Blob([await readFile(dump)]) });
      await embedded.stop();
    }
    options.onProgress?.(`restoring the data directory into ${options.dataDirectory}`);
    await mkdir(options.dataDirectory, { recursive: true });
    await tar.extract({ file: path.join(work, DATA_MEMBER), cwd: options.dataDirectory, strict: true, preservePaths: false });
    return manifest;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
