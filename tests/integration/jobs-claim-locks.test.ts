import { describe, expect, it } from "vitest";
import { db, dbPool } from "@/lib/db/client";
import { enqueueJobEvents } from "@/lib/jobs/enqueue";
import { createJobRegistry } from "@/lib/jobs/job-registry";
import { claimJobRuns } from "@/lib/jobs/job-queue/claim";
import { exclusiveJob } from "../support/jobs-fixtures";

/**
 * Lock order between a claim and an enqueue. An enqueue deciding about a singleton or concurrency
 * key holds the key's lock and then updates that key's runs (cancelling replaced ones); a claim has
 * locked its candidate rows before it looks at their keys. A claim that waited for a key's lock
 * there deadlocked with such an enqueue (PostgreSQL's "deadlock detected", seen in CI in
 * jobs-multiprocess.test.ts). PostgreSQL only: PGlite's one connection cannot hold a lock for
 * another transaction.
 */
describe.skipIf(process.env.XCLAW_TEST_DATABASE !== "postgres")("claiming keyed runs", () => {
  it("never waits for a key's lock while holding rows: the run is left for a later pass", async () => {
    const { runIds } = await enqueueJobEvents(createJobRegistry([exclusiveJob]), { name: "test/exclusive", data: { key: "claim-locks" } });
    const run = await db().jobRun.findUniqueOrThrow({ where: { id: runIds[0]! } });
    expect(run.concurrencyKey).toBeTruthy();

    // Another transaction (an enqueue deciding about this key) holds the key's lock.
    const holder = await dbPool().connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`xclaw-jobs:c:${run.concurrencyKey}`]);
      const during = await claimJobRuns("claim-locks-test", 5, 30_000, { keyedFirst: true });
      expect(during.runs.map((claimed) => claimed.id)).not.toContain(run.id);
      // The claim let go of the row: the key's holder can update it, as an enqueue cancelling it would.
      await holder.query(`UPDATE "job_runs" SET "updatedAt" = now() WHERE "id" = $1::uuid`, [run.id]);
      await holder.query("COMMIT");
    } finally {
      holder.release();
    }
    const after = await claimJobRuns("claim-locks-test", 5, 30_000, { keyedFirst: true });
    expect(after.runs.map((claimed) => claimed.id)).toContain(run.id);
  });
});
