import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * Personal API tokens: `xclaw_` + 256 random bits. Only a SHA-256 of the token is stored (a slow
 * KDF buys nothing against a random 256-bit secret, and bearer checks run on every request); the
 * plain token is returned once, at creation.
 */
export const API_TOKEN_PREFIX = "xclaw_";
const MAX_TOKENS_PER_USER = 50;

export const ZCreateApiToken = z.strictObject({
  name: z.string().trim().min(1, "Give the token a name.").max(100, "Token names are at most 100 characters."),
});
export type TCreateApiToken = z.infer<typeof ZCreateApiToken>;

export type TApiTokenSummary = { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null };

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function looksLikeApiToken(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX) && value.length > API_TOKEN_PREFIX.length + 20;
}

export async function createApiToken(options: { userId: string; name: string }): Promise<TApiTokenSummary & { token: string }> {
  const count = await db().apiToken.count({ where: { userId: options.userId } });
  if (count >= MAX_TOKENS_PER_USER) {
    throw new AppError("conflict", `You already have ${MAX_TOKENS_PER_USER} tokens. Revoke one you no longer use first.`);
  }
  const token = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const row = await db().apiToken.create({
    data: { userId: options.userId, name: options.name, tokenHash: hashApiToken(token), prefix: token.slice(0, 12) },
  });
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, token };
}

export async function listApiTokens(options: { userId: string }): Promise<TApiTokenSummary[]> {
  return db().apiToken.findMany({
    where: { userId: options.userId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true },
  });
}

/** Revokes one of the caller's tokens; someone else's token id is "not found", never "forbidden". */
export async function revokeApiToken(options: { userId: string; tokenId: string }): Promise<void> {
  const parsed = z.uuid().safeParse(options.tokenId);
  const { count } = parsed.success
    ? await db().apiToken.deleteMany({ where: { id: parsed.data, userId: options.userId } })
    : { count: 0 };
  if (count === 0) throw new AppError("not_found", "No such token.");
}
