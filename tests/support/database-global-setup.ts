import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedDatabase } from "../../lib/db/embedded";
import { migrateDatabase } from "../../lib/db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDumpPath: string;
    postgresTemplate: string;
  }
}

/**
 * Prepares one migrated database per run that every test file clones: a PGlite data-directory
 * dump (loading it skips initdb and migrations), or a PostgreSQL template database.
 */
export default async function setup(project: TestProject) {
  const kind = process.env.XCLAW_TEST_DATABASE ?? project.config.env?.XCLAW_TEST_DATABASE;
  if (kind === "postgres") {
    const adminUrl = process.env.TEST_DATABASE_URL!;
    const template = `xclaw_template_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${template}"`);
    const templateUrl = new URL(adminUrl);
    templateUrl.pathname = `/${template}`;
    await migrateDatabase(templateUrl.toString());
    project.provide("postgresTemplate", template);
    project.provide("pgliteDumpPath", "");
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
      await admin.end();
    };
  }
  const embedded = await startEmbeddedDatabase({});
  await migrateDatabase(embedded.url);
  const dump = await embedded.pglite.dumpDataDir("none");
  await embedded.stop();
  const dumpPath = path.join(os.tmpdir(), `xclaw-pglite-${process.pid}-${randomBytes(4).toString("hex")}.tar`);
  await writeFile(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteDumpPath", dumpPath);
  project.provide("postgresTemplate", "");
  return async () => {
    const { rm } = await import("node:fs/promises");
    await rm(dumpPath, { force: true });
  };
}
