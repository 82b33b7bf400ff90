import pg from "pg";
import { resealSecret, type TSealedColumn } from "@/lib/config/secret-box";

/**
 * Re-seals every stored secret under the current NEXTAUTH_SECRET (values sealed under
 * NEXTAUTH_SECRET_PREVIOUS are read with it). Each row is written only if it still holds the value
 * that was read, so a save made meanwhile by the running app is never overwritten; running it
 * again changes nothing. A value neither secret opens is counted and left alone.
 */
export type TRotationResult = { column: string; resealed: number; current: number; unreadable: number };

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/i;

export async function resealStoredSecrets(options: { databaseUrl: string; columns: readonly TSealedColumn[] }): Promise<TRotationResult[]> {
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const results: TRotationResult[] = [];
    for (const column of options.columns) {
      if (!IDENTIFIER.test(column.table) || !IDENTIFIER.test(column.column)) throw new Error(`not a column name: ${column.table}.${column.column}`);
      const name = `"${column.table}"."${column.column}"`;
      const result: TRotationResult = { column: `${column.table}.${column.column}`, resealed: 0, current: 0, unreadable: 0 };
      const { rows } = await client.query<{ id: string; value: string }>(`SELECT "id", ${name} AS "value" FROM "${column.table}" WHERE ${name} IS NOT NULL`);
      for (const row of rows) {
        let next: string | undefined;
        try {
          next = column.reseal ? column.reseal(row.value) : resealSecret(row.value, column.purpose);
        } catch {
          result.unreadable++;
          continue;
        }
        if (next === undefined) {
          result.current++;
          continue;
        }
        const updated = await client.query(`UPDATE "${column.table}" SET "${column.column}" = $1 WHERE "id" = $2 AND "${column.column}" = $3`, [next, row.id, row.value]);
        if (updated.rowCount) result.resealed++;
      }
      results.push(result);
    }
    return results;
  } finally {
    await client.end();
  }
}
