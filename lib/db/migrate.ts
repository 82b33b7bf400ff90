import { createHash, randomUUID } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies pending Prisma migrations without the Prisma CLI, which needs a schema-engine binary and
 * several seconds to start. It keeps Prisma's bookkeeping exactly: the same `_prisma_migrations`
 * table, the same checksum (SHA-256 of migration.sql), the same advisory lock, one row per applied
 * migration. So `prisma migrate deploy` / `status` on a VPS treat what this applied as applied, and
 * this skips what Prisma applied.
 */
export type TMigration = { name: string; sql: string; checksum: string };
export type TMigrationResult = { applied: string[]; alreadyApplied: number };

/** The database has migrations this version of the code does not have. */
export class DatabaseAheadError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `the database was migrated by a newer version of xclaw (${unknownMigrations.length} migration(s) this version does not know: ${unknownMigrations.join(", ")}). ` +
        "Start the newer version again, or restore the backup taken before the upgrade (docs/deploy.md, \"Rolling back\").",
    );
    this.name = "DatabaseAheadError";
  }
}

// Prisma's own lock id for migrations on PostgreSQL, so the two never run at once.
const PRISMA_MIGRATION_LOCK_ID = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export function defaultMigrationsDirectory(): string {
  return path.join(process.cwd(), "prisma", "migrations");
}

export async function readMigrations(directory = defaultMigrationsDirectory()): Promise<TMigration[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(path.join(directory, name, "migration.sql"));
      return { name, sql: bytes.toString("utf8"), checksum: createHash("sha256").update(bytes).digest("hex") };
    }),
  );
}

type TAppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

export async function applyMigrations(
  client: pg.ClientBase,
  options: { directory?: string; onApply?: (name: string) => void } = {},
): Promise<TMigrationResult> {
  const migrations = await readMigrations(options.directory);
  await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATION_LOCK_ID]);
  try {
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<TAppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
    );
    const live = rows.filter((row) => row.rolled_back_at === null);
    const failed = live.find((row) => row.finished_at === null);
    if (failed) {
      throw new Error(
        `migration ${failed.migration_name} failed earlier and was not resolved; fix the database, then run \`npx prisma migrate resolve --rolled-back ${failed.migration_name}\` (Prisma error P3009)`,
      );
    }
    const appliedNames = new Set(live.map((row) => row.migration_name));
    // A newer version of xclaw migrated this database: this code does not know its tables, so it
    // must not serve (or migrate) it.
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = live.filter((row) => row.finished_at !== null && !known.has(row.migration_name)).map((row) => row.migration_name);
    if (unknown.length) throw new DatabaseAheadError(unknown);
    const applied: string[] = [];
    for (const migration of migrations) {
      if (appliedNames.has(migration.name)) continue;
      const id = randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(`UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`, [id]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
      options.onApply?.(migration.name);
    }
    return { applied, alreadyApplied: appliedNames.size };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATION_LOCK_ID]).catch(() => {});
  }
}

export async function migrateDatabase(url: string, options: { directory?: string; onApply?: (name: string) => void } = {}) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await applyMigrations(client, options);
  } finally {
    await client.end();
  }
}
