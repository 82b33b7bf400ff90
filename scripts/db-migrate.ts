/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (production PostgreSQL), with
 * the same bookkeeping as `prisma migrate deploy`, so either tool can be used on a VPS.
 */
import path from "node:path";
import nextEnv from "@next/env";
import { ConfigError } from "../lib/config/config-error";
import { environment, resetEnvironment } from "../lib/config/environment";
import { migrateDatabase } from "../lib/db/migrate";

// DATABASE_URL may live in .env, as for the app itself.
nextEnv.loadEnvConfig(path.resolve(import.meta.dirname, ".."), false, { info: () => {}, error: console.error });
resetEnvironment();

let url: string | undefined;
try {
  url = environment().DATABASE_URL;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`xclaw: ${error.message}\n`);
  process.exit(1);
}
if (!url) {
  process.stderr.write("xclaw: DATABASE_URL is not set. The embedded database migrates itself on `npm run dev`; db:migrate is for PostgreSQL.\n");
  process.exit(1);
}
const directory = path.resolve(import.meta.dirname, "..", "prisma", "migrations");
try {
  const result = await migrateDatabase(url, { directory, onApply: (name) => process.stdout.write(`applied ${name}\n`) });
  process.stdout.write(result.applied.length ? `xclaw: applied ${result.applied.length} migration(s)\n` : "xclaw: database is up to date\n");
} catch (error) {
  process.stderr.write(`xclaw: migration failed: ${(error as Error).message}\n`);
  process.exit(1);
}
