import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { environment } from "@/lib/config/environment";
import { processSingleton } from "@/lib/process-singleton";
import { PrismaClient } from "./generated/client";

/**
 * One Prisma client per process, over `pg` and the Prisma pg adapter, for both databases: the
 * embedded PGlite is served over the pg wire protocol by scripts/start.ts, so production and the
 * embedded default share this code path. PGlite has one session for all connections, so its pool
 * holds one connection (see tools/prisma-schema-engine/README.md).
 */
type TDatabase = { prisma: PrismaClient; pool: pg.Pool; url: string };

// The client for the current DATABASE_URL; replaced when the URL changes, cleared on disconnect.
const current = processSingleton("db.client", (): { database?: TDatabase } => ({}));

export function databaseUrl(): string {
  const url = environment().DATABASE_URL;
  if (!url) {
    throw new Error("DATABASE_URL is not set. Start the app with `npm run dev` (it starts the embedded database) or set DATABASE_URL to a PostgreSQL 15+ database with pgvector.");
  }
  return url;
}

export function isEmbeddedDatabaseUrl(url: string): boolean {
  return environment().XCLAW_EMBEDDED_DATABASE_URL === url;
}

function connect(url: string): TDatabase {
  const settings = getBehaviourConfig().database;
  const configured = environment().DATABASE_POOL_MAX ?? settings.poolMax;
  const pool = new pg.Pool({
    connectionString: url,
    max: isEmbeddedDatabaseUrl(url) ? 1 : configured,
    // Waiting in pg-pool's queue for a busy pool is normal under load; failing after a few seconds
    // used to crash runs (issue: "runs crash when the database pool is exhausted").
    connectionTimeoutMillis: settings.connectionWaitSeconds * 1000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client's connection error (database restarted) must not crash the process.
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool);
  // An interactive transaction waits for its connection as long as any query does (Prisma's own
  // default is 2 s, which a queued PGlite or a busy pool exceeds under load).
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: settings.connectionWaitSeconds * 1000 } });
  return { prisma, pool, url };
}

function database(): TDatabase {
  const url = databaseUrl();
  const existing = current.database;
  if (existing && existing.url === url) return existing;
  if (existing) void disconnectDatabase();
  const created = connect(url);
  current.database = created;
  return created;
}

/** The Prisma client for DATABASE_URL, created on first use. */
export function db(): PrismaClient {
  return database().prisma;
}

/** The raw pg pool, for the few statements Prisma cannot express. */
export function dbPool(): pg.Pool {
  return database().pool;
}

const closers = processSingleton("db.closers", () => new Set<() => Promise<void>>());

/** Connections opened beside the pool (a LISTEN client) close with it. */
export function onDatabaseDisconnect(close: () => Promise<void>): void {
  closers.add(close);
}

export async function disconnectDatabase(): Promise<void> {
  const existing = current.database;
  current.database = undefined;
  const closing = [...closers];
  closers.clear();
  await Promise.all(closing.map((close) => close().catch(() => {})));
  if (!existing) return;
  await existing.prisma.$disconnect().catch(() => {});
  await existing.pool.end().catch(() => {});
}
