import { createHash, randomInt } from "node:crypto";
import { assertNotRateLimited, clearRateLimit, recordFailure } from "@/lib/auth/rate-limit";
import { db } from "@/lib/db/client";
import { rawQuery, sql } from "@/lib/db/raw-query";
import { AppError } from "@/lib/errors";

/**
 * One-time codes that bind a chat account to an xclaw account: Settings → Channels shows one, the
 * person sends `/bind <code>` to the bot. A code works once, for ten minutes; only its SHA-256 is
 * stored, and a new code replaces the person's unused ones. A code is 8 characters from an
 * alphabet without look-alikes (40 bits), and wrong guesses are limited per sender and per bot,
 * because a guessed code would let a stranger act as someone else.
 */
export const CODE_MINUTES = 10;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;
const PER_SENDER = { maxFailures: 5, windowSeconds: 900 };
const PER_BOT = { maxFailures: 100, windowSeconds: 900 };

/** What people type: any case, with or without the dash or spaces. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

function hashCode(code: string): string {
  return createHash("sha256").update(normalizeCode(code)).digest("hex");
}

export async function createBindingCode(options: { userId: string; now?: Date }): Promise<{ code: string; expiresAt: Date }> {
  const now = options.now ?? new Date();
  const raw = Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
  const expiresAt = new Date(now.getTime() + CODE_MINUTES * 60_000);
  await db().$transaction([
    db().channelBindingCode.deleteMany({ where: { userId: options.userId, usedAt: null } }),
    db().channelBindingCode.create({ data: { userId: options.userId, codeHash: hashCode(code), expiresAt } }),
  ]);
  return { code, expiresAt };
}

/**
 * Uses a code (once: the update is the check) and binds the sender to its user, replacing an
 * earlier binding of the same sender. Returns the bound user; refusals are AppErrors in words the
 * sender can act on.
 */
export async function redeemBindingCode(options: { accountId: string; externalUserId: string; code: string }): Promise<{ userId: string; email: string; name: string | null }> {
  const senderKey = `channel-bind:sender:${options.accountId}:${options.externalUserId}`;
  const botKey = `channel-bind:bot:${options.accountId}`;
  await assertNotRateLimited(senderKey, PER_SENDER, "wrong binding codes");
  await assertNotRateLimited(botKey, PER_BOT, "wrong binding codes");
  const normalized = normalizeCode(options.code);
  const rows = /^[A-Z0-9]{8}$/.test(normalized)
    ? await rawQuery<{ userId: string }>(sql`
        UPDATE "channel_binding_codes" SET "usedAt" = ${new Date()}::timestamp
        WHERE "codeHash" = ${hashCode(normalized)} AND "usedAt" IS NULL AND "expiresAt" > ${new Date()}::timestamp
        RETURNING "userId"`)
    : [];
  const userId = rows[0]?.userId;
  const user = userId ? await db().user.findFirst({ where: { id: userId, status: "ACTIVE" }, select: { id: true, email: true, name: true } }) : null;
  if (!user) {
    await Promise.all([recordFailure(senderKey, PER_SENDER), recordFailure(botKey, PER_BOT)]);
    throw new AppError("bad_request", "That code is not valid: it may be mistyped, used or older than ten minutes. Get a new one in xclaw under Settings → Channels.");
  }
  await db().channelBinding.upsert({
    where: { accountId_externalUserId: { accountId: options.accountId, externalUserId: options.externalUserId } },
    create: { accountId: options.accountId, externalUserId: options.externalUserId, userId: user.id },
    update: { userId: user.id, createdAt: new Date() },
  });
  await clearRateLimit(senderKey);
  return { userId: user.id, email: user.email, name: user.name };
}

export async function pruneBindingCodes(before: Date): Promise<number> {
  return (await db().channelBindingCode.deleteMany({ where: { OR: [{ expiresAt: { lt: before } }, { usedAt: { lt: before } }] } })).count;
}
