import { dbPool } from "./client";
import { Prisma } from "./generated/client";

/**
 * A raw statement straight on the pg pool, without Prisma's query machinery: for the few
 * statements every chat runs (the claim, the model step's result, the run's end). Measured with
 * 20 statements in flight on PostgreSQL: about 80 µs of CPU per statement here against 270-370 µs
 * through `$queryRaw` / `updateMany` (ARCHITECTURE.md, "Under load"). Written with `Prisma.sql` like
 * any raw query; the pool is the one Prisma uses, so the same connection limits hold.
 *
 * Dates are sent as UTC ISO strings: pg would send local time with an offset, which a cast to
 * `timestamp` (our columns have no time zone) would keep as local time. Rows come back as pg parses
 * them, so select no `timestamp` columns here (pg reads those as local time too).
 */
export async function rawQuery<T>(query: Prisma.Sql): Promise<T[]> {
  const values = query.values.map((value) => (value instanceof Date ? value.toISOString() : value));
  const { rows } = await dbPool().query(query.text, values);
  return rows as T[];
}

/** The tag for rawQuery's statements (Prisma.sql: values become parameters). */
export const sql = Prisma.sql;
