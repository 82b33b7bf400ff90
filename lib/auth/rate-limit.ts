import { db } from "@/lib/db/client";

/**
 * Fixed-window failure counters kept in the database, so limits hold across restarts and across
 * several app processes. `check` refuses while a key has used up its window; `recordFailure`
 * counts one more failure atomically (one upsert, no read-modify-write race).
 */
export type TRateLimitRule = { maxFailures: number; windowSeconds: number };
export type TRateLimitState = { blocked: boolean; retryAfterSeconds: number };

export async function checkRateLimit(key: string, rule: TRateLimitRule): Promise<TRateLimitState> {
  const bucket = await db().rateLimitBucket.findUnique({ where: { key } });
  if (!bucket) return { blocked: false, retryAfterSeconds: 0 };
  const resetAt = bucket.windowStart.getTime() + rule.windowSeconds * 1000;
  const remainingMs = resetAt - Date.now();
  if (remainingMs <= 0 || bucket.count < rule.maxFailures) return { blocked: false, retryAfterSeconds: 0 };
  return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
}

export async function recordFailure(key: string, rule: TRateLimitRule): Promise<void> {
  await db().$executeRaw`
    INSERT INTO "rate_limit_buckets" ("key", "count", "windowStart", "createdAt", "updatedAt")
    VALUES (${key}, 1, now(), now(), now())
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "rate_limit_buckets"."windowStart" <= now() - make_interval(secs => ${rule.windowSeconds}::int)
                     THEN 1 ELSE "rate_limit_buckets"."count" + 1 END,
      "windowStart" = CASE WHEN "rate_limit_buckets"."windowStart" <= now() - make_interval(secs => ${rule.windowSeconds}::int)
                     THEN now() ELSE "rate_limit_buckets"."windowStart" END,
      "updatedAt" = now()`;
}

export async function clearRateLimit(key: string): Promise<void> {
  await db().rateLimitBucket.deleteMany({ where: { key } });
}
