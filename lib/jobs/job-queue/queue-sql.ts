import { Prisma } from "@/lib/db/generated/client";
import { JOBS_CHANNEL } from "@/lib/jobs/wake-bus";

/**
 * The embedded runner's queue, in SQL (this folder: enqueue, claim, steps, finish, admin; here the
 * pieces they share). A job run is one row that is at once the queue entry, the
 * lease and the result; memoized steps are rows of job_steps. Every statement is short: a worker
 * holds no connection (and no transaction) while a handler runs.
 *
 * - Claiming takes due rows with FOR UPDATE SKIP LOCKED, so concurrent workers never get the same
 *   run. Runs with a concurrency or singleton key are admitted under a transaction-scoped advisory
 *   lock per key, taken in sorted order, and counted again after the lock: two workers cannot
 *   both see "one slot left" for the same key. (On PGlite all connections share one session and
 *   the socket server runs one transaction at a time, so the lock is trivially held.)
 * - Every write a worker makes about a run it executes is fenced by `leaseOwner`: once its lease
 *   has expired and another worker took the run over, the old worker's writes match no row and
 *   it stops.
 * - Times come from the database clock (UTC, the way Prisma stores `timestamp` columns), so
 *   processes on different machines agree on leases and due times.
 */
export const NOW = Prisma.raw(`(now() AT TIME ZONE 'utc')`);

export function afterMs(ms: number): Prisma.Sql {
  return Prisma.sql`(${NOW} + (${ms}::double precision * interval '1 millisecond'))`;
}

/** A UTC instant as a `timestamp` literal (the zone suffix is dropped, the UTC wall time kept). */
export function timestamp(date: Date | null | undefined): Prisma.Sql {
  return date ? Prisma.sql`${date.toISOString()}::timestamp` : Prisma.sql`NULL::timestamp`;
}

export function uuidList(ids: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}

export function textList(values: readonly string[]): Prisma.Sql {
  return Prisma.sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

export type TClient = Prisma.TransactionClient;

/** The advisory lock's name for a key: lockKeys and tryLockKeys must lock the same names. */
const lockName = (key: string) => `xclaw-jobs:${key}`;

export async function lockKeys(tx: TClient, keys: Iterable<string>): Promise<void> {
  // Sorted, so two transactions that need the same keys take them in the same order (no deadlock),
  // and all in one statement: a batch of events (memory's extraction signals) locks many keys.
  const sorted = [...new Set(keys)].sort().map(lockName);
  if (!sorted.length) return;
  await tx.$queryRaw`
    SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0)))::int AS locked
    FROM (SELECT k FROM jsonb_array_elements_text(${JSON.stringify(sorted)}::jsonb) WITH ORDINALITY AS t(k, n) ORDER BY n) AS ordered`;
}

/**
 * For a transaction that already holds row locks (a claim): takes what it can of the keys' locks
 * without waiting, and says which it got. Waiting here could deadlock with an enqueue, which holds
 * a key's lock while it updates that key's rows; a run whose key is busy is claimed on a later pass.
 */
export async function tryLockKeys(tx: TClient, keys: Iterable<string>): Promise<Set<string>> {
  const unique = [...new Set(keys)];
  if (!unique.length) return new Set();
  const rows = await tx.$queryRaw<{ key: string }[]>`
    SELECT t."key" FROM jsonb_to_recordset(${JSON.stringify(unique.map((key) => ({ key, name: lockName(key) })))}::jsonb) AS t("key" text, "name" text)
    WHERE pg_try_advisory_xact_lock(hashtextextended(t."name", 0))`;
  return new Set(rows.map((row) => row.key));
}

/** NOTIFY is delivered at commit, so listeners never look before the rows are visible. */
export async function notify(tx: TClient, cancelled: readonly string[] = []): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS sent FROM pg_notify(${JOBS_CHANNEL}, 'work')`;
  for (const id of cancelled) await tx.$queryRaw`SELECT 1 AS sent FROM pg_notify(${JOBS_CHANNEL}, ${`cancel:${id}`})`;
}
