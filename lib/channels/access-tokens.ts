import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { processSingleton } from "@/lib/process-singleton";
import type { TOpenedAccount } from "./channel-accounts";

/**
 * The platforms' access tokens (QQ's AccessToken, Feishu's tenant_access_token), one per bot and
 * credentials, kept until shortly before they expire. A token that is being fetched is shared:
 * twenty replies at once ask the platform once (lru-cache's fetch, single-flight per key). The key
 * holds a hash of the credentials and the token URL, so a changed secret never uses an old token.
 */
export type TAccessToken = { token: string; expiresInSeconds: number };
type TTokenFetch = { fetchToken: () => Promise<TAccessToken>; refreshMarginSeconds: number };

const tokens = processSingleton("channel-access-tokens", () =>
  new LRUCache<string, string, TTokenFetch>({
    max: 1_000,
    // Replaced by each token's own lifetime below; a bound in case a platform forgets to say.
    ttl: 60 * 60_000,
    fetchMethod: async (_key, _stale, { options, context }) => {
      const fetched = await context.fetchToken();
      // Refreshed a little before it expires, so no reply is sent with a token about to die.
      options.ttl = Math.max(1_000, (fetched.expiresInSeconds - context.refreshMarginSeconds) * 1_000);
      return fetched.token;
    },
  }),
);

/** The bot and its credentials: a cache key that changes whenever they do. */
export function keyOf(account: TOpenedAccount): string {
  const credentials = createHash("sha256").update(`${account.appId}\n${account.secrets.appSecret}\n${account.tokenUrl}`).digest("hex");
  return `${account.id}:${credentials}`;
}

export async function accessToken(account: TOpenedAccount, fetch: TTokenFetch): Promise<string> {
  const token = await tokens.fetch(keyOf(account), { context: fetch });
  if (!token) throw new Error(`No access token for the bot "${account.name}".`);
  return token;
}

/** After the platform refused a token (expired early, revoked): the next call fetches a new one. */
export function forgetAccessToken(account: TOpenedAccount): void {
  tokens.delete(keyOf(account));
}

/** `expires_in` arrives as a number or as a string of digits (QQ sends "7200"). */
export function secondsOf(value: unknown): number | undefined {
  const seconds = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
