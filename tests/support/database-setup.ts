import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { disconnectDatabase } from "../../lib/db/client";
import { startEmbeddedDatabase, type TEmbeddedDatabase } from "../../lib/db/embedded";
import { localRunCount } from "../../lib/runs/local-runs";
import { installApp } from "../../lib/app/install-app";
import { resetEnvironment } from "../../lib/config/environment";
import { processSingleton } from "../../lib/process-singleton";

// The capability list and the job catalog, as instrumentation.ts installs them in the app.
installApp();

/** Gives this test file a database of its own and points DATABASE_URL at it. */
let embedded: TEmbeddedDatabase | undefined;
let dropDatabase: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (process.env.XCLAW_TEST_DATABASE === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL!;
    const name = `xclaw_test_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject("postgresTemplate")}"`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    process.env.DATABASE_URL = url.toString();
    delete process.env.XCLAW_EMBEDDED_DATABASE_URL;
    resetEnvironment();
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        // FORCE only ends what the process left behind; every pool was closed above.
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    };
    return;
  }
  const dump = await readFile(inject("pgliteDumpPath"));
  embedded = await startEmbeddedDatabase({ loadDataDir: new Blob([dump]) });
  process.env.DATABASE_URL = embedded.url;
  process.env.XCLAW_EMBEDDED_DATABASE_URL = embedded.url;
  resetEnvironment();
  // Loading PGlite from the dump took over 45 s on a 2-core machine under load: slow by nature.
}, 180_000);

/**
 * Waits (at most 5 s) until this process has no run in flight and its pool no query: a test's last
 * await can return while a run still writes its end, a heartbeat renews a lease or run events are
 * flushed, in this module graph or another one (vi.resetModules). Closing the pool under them makes
 * them open a new one, and dropping the database WITH (FORCE) under that connection is an
 * unhandled "57P01 terminating connection due to administrator command".
 */
async function settleDatabaseWork(): Promise<void> {
  // The database client's own per-process slot (lib/db/client.ts), read without connecting.
  const shared = processSingleton("db.client", (): { database?: { pool: pg.Pool } } => ({}));
  const deadline = Date.now() + 5_000;
  for (let quiet = 0; quiet < 3 && Date.now() < deadline; ) {
    const pool = shared.database?.pool;
    const busy = localRunCount() > 0 || (pool !== undefined && (pool.totalCount > pool.idleCount || pool.waitingCount > 0));
    quiet = busy ? 0 : quiet + 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

afterAll(async () => {
  await settleDatabaseWork();
  await disconnectDatabase();
  await embedded?.stop();
  await dropDatabase?.();
}, 120_000);
