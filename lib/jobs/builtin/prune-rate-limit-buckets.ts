import { db } from "@/lib/db/client";

/**
 * Deletes sign-in rate-limit windows that started more than a day ago (every configured window
 * is at most a day, so such a bucket can no longer block anyone).
 *
 * Stand-in: lib/auth/rate-limit.ts is getting its own `pruneRateLimitBuckets`; once it lands, the
 * rate-limits.prune job calls that one and this file goes.
 */
export async function pruneRateLimitBuckets(): Promise<number> {
  const cutoff = new Date(Date.now() - 24 * 3600 * 1000);
  const { count } = await db().rateLimitBucket.deleteMany({ where: { windowStart: { lt: cutoff } } });
  return count;
}
