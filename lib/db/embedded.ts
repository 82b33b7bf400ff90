import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) with pgvector, persisted in a
 * directory and served over the PostgreSQL wire protocol on loopback, so the app talks to it with
 * the same `pg` + Prisma adapter code as to a real server. One process owns a data directory at a
 * time; a lock file with its pid turns a second start into a clear error instead of corruption.
 */
export type TEmbeddedDatabase = {
  url: string;
  port: number;
  dataDirectory: string | undefined;
  /** The PGlite instance itself, for dumps (test fixtures) and in-process queries. */
  pglite: PGlite;
  stop: () => Promise<void>;
};

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function takeLock(lockFile: string): Promise<void> {
  try {
    await writeFile(lockFile, String(process.pid), { flag: "wx" });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const owner = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
  if (owner && owner !== process.pid && isProcessAlive(owner)) {
    throw new Error(
      `the embedded database in ${path.dirname(lockFile)} is in use by process ${owner}. Stop that process, or set XCLAW_DATA_DIR to another directory.`,
    );
  }
  // The previous owner died without cleaning up: the lock is stale.
  await writeFile(lockFile, String(process.pid));
}

/**
 * Starts PGlite. `dataDirectory` undefined means in memory (tests); `loadDataDir` seeds a fresh
 * instance from a dump made by `PGlite.dumpDataDir`, which skips initdb and migrations.
 */
export async function startEmbeddedDatabase(options: {
  dataDirectory?: string;
  port?: number;
  loadDataDir?: Blob;
}): Promise<TEmbeddedDatabase> {
  const { dataDirectory } = options;
  let lockFile: string | undefined;
  if (dataDirectory) {
    await mkdir(dataDirectory, { recursive: true });
    lockFile = path.join(path.dirname(dataDirectory), `${path.basename(dataDirectory)}.lock`);
    await takeLock(lockFile);
  }
  let database: PGlite;
  try {
    database = await PGlite.create({
      dataDir: dataDirectory,
      extensions: { vector },
      loadDataDir: options.loadDataDir,
    });
  } catch (error) {
    if (lockFile) await rm(lockFile, { force: true });
    throw error;
  }
  // Several sockets may connect (the app, a migration, a reconnect after a dropped connection);
  // PGlite still runs one query at a time for all of them.
  const server = new PGLiteSocketServer({ db: database, host: "127.0.0.1", port: options.port ?? 0, maxConnections: 16 });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  let stopped = false;
  return {
    url,
    port,
    dataDirectory,
    pglite: database,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop().catch(() => {});
      await database.close().catch(() => {});
      if (lockFile) await rm(lockFile, { force: true });
    },
  };
}
