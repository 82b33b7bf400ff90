import { describe, expect, it } from "vitest";
import { checkRateLimit, pruneRateLimitBuckets, recordFailure } from "@/lib/auth/rate-limit";
import { db } from "@/lib/db/client";

const RULE = { maxFailures: 2, windowSeconds: 60 };

describe("rate-limit buckets", () => {
  it("counts keys of any length or content in bounded rows", async () => {
    const keys = ["test:long:" + "é🙂x".repeat(100_000), "test:nul:a\u0000b", "test:surrogate:\ud800"];
    for (const key of keys) {
      await recordFailure(key, RULE);
      await recordFailure(key, RULE);
      expect(await checkRateLimit(key, RULE)).toMatchObject({ blocked: true });
    }
    const rows = await db().rateLimitBucket.findMany({ where: { key: { startsWith: "test:" } } });
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.key.length <= 200 && row.count === 2)).toBe(true);
    // Similar long keys do not share a bucket.
    expect(await checkRateLimit("test:long:" + "é🙂x".repeat(100_000) + "y", RULE)).toMatchObject({ blocked: false });
  });

  it("prunes buckets whose window started before a given time, and only those", async () => {
    const now = Date.now();
    await db().rateLimitBucket.createMany({
      data: [
        { key: "prune:old:1", count: 3, windowStart: new Date(now - 2 * 86_400_000) },
        { key: "prune:old:2", count: 1, windowStart: new Date(now - 86_400_000 - 1_000) },
        { key: "prune:fresh:1", count: 5, windowStart: new Date(now - 60_000) },
      ],
    });
    expect(await pruneRateLimitBuckets({ olderThan: new Date(now - 86_400_000) })).toBe(2);
    const left = (await db().rateLimitBucket.findMany({ where: { key: { startsWith: "prune:" } } })).map((row) => row.key);
    expect(left).toEqual(["prune:fresh:1"]);
  });
});
