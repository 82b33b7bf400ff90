import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { disconnectDatabase } from "../../lib/db/client";
import { startEmbeddedDatabase, type TEmbeddedDatabase } from "../../lib/db/embedded";
import { resetEnvironment } from "../../lib/config/environment";
// Installs the app's jobs for sendEvent, as instrumentation.ts does in the app.
import "../../lib/job-catalog/catalog";

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
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    };
    return;
  }
  const dump = await readFile(inject("pgliteDumpPath"));
  embedded = await startEmbeddedDatabase({ loadDataDir: new Blob([dump]) });
  process.env.DATABASE_URL = embedded.url;
  process.env.XCLAW_EMBEDDED_DATABASE_URL = embedded.url;
  resetEnvironment();
});

afterAll(async () => {
  await disconnectDatabase();
  await embedded?.stop();
  await dropDatabase?.();
});
