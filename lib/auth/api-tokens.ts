import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { forgetAuth } from "./auth-cache";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * Personal API tokens: `xclaw_` + 256 random bits. Only a SHA-256 of the token is stored (a slow
 * KDF buys nothing against a random 256-bit secret, and bearer checks run on every request); the
 * plain token is returned once, at creation.
 *
 * A token belongs to the owner's sessions: it stores the owner's `sessionVersion` at creation and
 * works only while that is still current. "Sign out everywhere", a password change and disabling
 * the account therefore end tokens too, so a token minted with a stolen cookie does not outlive
 * the victim's password reset, and re-enabling an account does not bring old tokens back.
 */
export const API_TOKEN_PREFIX = "xclaw_";
const MAX_TOKENS_PER_USER = 50;

export const ZCreateApiToken = z.strictObject({
  name: z.string().trim().min(1, "Give the token a name.").max(100, "Token names are at most 100 characters."),
});
export type TCreateApiToken = z.infer<typeof ZCreateApiToken>;

/** `active` is false once the owner's sessions were ended after the token was made; it then never works again. */
export type TApiTokenSummary = { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; active: boolean };

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function looksLikeApiToken(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX) && value.length > API_TOKEN_PREFIX.length + 20;
}

export async function createApiToken(options: { userId: string; name: string }): Promise<TApiTokenSummary & { token: string }> {
  const owner = await db().user.findUnique({
    where: { id: options.userId },
    select: { sessionVersion: true, _count: { select: { apiTokens: true } } },
  });
  if (!owner) throw new AppError("not_found", "No such user.");
  if (owner._count.apiTokens >= MAX_TOKENS_PER_USER) {
    throw new AppError("conflict", `You already have ${MAX_TOKENS_PER_USER} tokens. Revoke one you no longer use first.`);
  }
  const token = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
  // If the version changes between the read and this insert, the token is born dead: the safe side.
  const row = await db().apiToken.create({
    data: { userId: options.userId, name: options.name, tokenHash: hashApiToken(token), prefix: token.slice(0, 12), sessionVersion: owner.sessionVersion },
  });
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, active: true, token };
}

export async function listApiTokens(options: { userId: string }): Promise<TApiTokenSummary[]> {
  const owner = await db().user.findUnique({
    where: { id: options.userId },
    select: {
      sessionVersion: true,
      apiTokens: { orderBy: { createdAt: "desc" }, select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, sessionVersion: true } },
    },
  });
  return (owner?.apiTokens ?? []).map(({ sessionVersion, ...token }) => ({ ...token, active: sessionVersion === owner!.sessionVersion }));
}

/** Revokes one of the caller's tokens; someone else's token id is "not found", never "forbidden". */
export async function revokeApiToken(options: { userId: string; tokenId: string }): Promise<void> {
  const parsed = z.uuid().safeParse(options.tokenId);
  const { count } = parsed.success
    ? await db().apiToken.deleteMany({ where: { id: parsed.data, userId: options.userId } })
    : { count: 0 };
  if (count === 0) throw new AppError("not_found", "No such token.");
  forgetAuth(options.userId);
}
