import { createHash } from "node:crypto";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { hasForbiddenCharacter } from "@/lib/http/request-body";
import { createLogger } from "@/lib/observability/logger";

/**
 * Fixed-window counters kept in the database, so limits hold across restarts and across several
 * app processes. `checkRateLimit` refuses while a key has used up its window; `recordFailure`
 * counts one more hit atomically (one upsert, no read-modify-write race).
 *
 * Keys embed what the client sent (an email, an address), so they are bounded here: a key that is
 * long or holds characters PostgreSQL cannot store is replaced by its SHA-256. Without that a
 * 20 MB "email" made the upsert fail (`index row requires … bytes`) and never counted.
 */
export type TRateLimitRule = { maxFailures: number; windowSeconds: number };
export type TRateLimitState = { blocked: boolean; retryAfterSeconds: number };

const log = createLogger("auth");
const MAX_KEY_LENGTH = 200;
const READABLE_PREFIX_LENGTH = 64;

/** The stored form of a key: itself when short and clean, else a readable prefix and a hash. */
export function bucketKey(key: string): string {
  if (key.length <= MAX_KEY_LENGTH && !hasForbiddenCharacter(key)) return key;
  // Keep the kind of limit readable ("sign-in:email:") for people looking at the table.
  const kind = /^[a-z-]+:[a-z-]+:/.exec(key.slice(0, READABLE_PREFIX_LENGTH))?.[0] ?? "";
  return `${kind}sha256:${createHash("sha256").update(key).digest("hex")}`;
}

export async function checkRateLimit(key: string, rule: TRateLimitRule): Promise<TRateLimitState> {
  const bucket = await db().rateLimitBucket.findUnique({ where: { key: bucketKey(key) } });
  if (!bucket) return { blocked: false, retryAfterSeconds: 0 };
  const resetAt = bucket.windowStart.getTime() + rule.windowSeconds * 1000;
  const remainingMs = resetAt - Date.now();
  if (remainingMs <= 0 || bucket.count < rule.maxFailures) return { blocked: false, retryAfterSeconds: 0 };
  return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) };
}

export async function recordFailure(key: string, rule: TRateLimitRule): Promise<void> {
  await db().$executeRaw`
    INSERT INTO "rate_limit_buckets" ("key", "count", "windowStart", "createdAt", "updatedAt")
    VALUES (${bucketKey(key)}, 1, now(), now(), now())
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "rate_limit_buckets"."windowStart" <= now() - make_interval(secs => ${rule.windowSeconds}::int)
                     THEN 1 ELSE "rate_limit_buckets"."count" + 1 END,
      "windowStart" = CASE WHEN "rate_limit_buckets"."windowStart" <= now() - make_interval(secs => ${rule.windowSeconds}::int)
                     THEN now() ELSE "rate_limit_buckets"."windowStart" END,
      "updatedAt" = now()`;
}

export async function clearRateLimit(key: string): Promise<void> {
  await db().rateLimitBucket.deleteMany({ where: { key: bucketKey(key) } });
}

/**
 * Throws the 429 (with Retry-After) that every limited action answers with while `key` is
 * blocked. `what` completes "Too many …": e.g. "failed sign-in attempts".
 */
export async function assertNotRateLimited(key: string, rule: TRateLimitRule, what: string): Promise<void> {
  const state = await checkRateLimit(key, rule);
  if (!state.blocked) return;
  log.warn("rate limited", { limit: key.split(":").slice(0, 2).join(":"), retryAfterSeconds: state.retryAfterSeconds });
  throw new AppError("rate_limited", `Too many ${what}. Try again in ${state.retryAfterSeconds} s.`, {
    headers: { "retry-after": String(state.retryAfterSeconds) },
  });
}

/**
 * Deletes buckets whose window started before `olderThan`; returns how many. Safe with any
 * `olderThan` at least as old as the longest configured window; 24 hours ago is always safe,
 * since xclaw.yaml refuses longer windows. Meant to run periodically (a job).
 */
export async function pruneRateLimitBuckets(options: { olderThan: Date }): Promise<number> {
  const { count } = await db().rateLimitBucket.deleteMany({ where: { windowStart: { lt: options.olderThan } } });
  return count;
}
