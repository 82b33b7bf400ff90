import { dbPool } from "./client";

export type TDatabaseHealth = { kind: "pglite" | "postgres"; vector: boolean };

const HEALTH_TIMEOUT_MS = 3_000;

/** Probes the database the app uses: which kind it is, and whether pgvector answers a query. */
export async function checkDatabaseHealth(): Promise<TDatabaseHealth> {
  const probe = (async () => {
    const { rows } = await dbPool().query<{ version: string; distance: number | null }>(
      `SELECT version() AS version, ('[1,2,3]'::vector <-> '[1,2,4]'::vector) AS distance`,
    );
    const row = rows[0];
    return {
      kind: row?.version.includes("PGlite") ? "pglite" : "postgres",
      vector: row?.distance === 1,
    } satisfies TDatabaseHealth;
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
