import type { User } from "@/lib/db/generated/client";

/**
 * Who a bearer token or session cookie belongs to, remembered for a few seconds: authentication is
 * on the path to every chat message's first token, and a chat sends several requests in a row.
 * Anything that ends access in this process (revoking a token, signing out, a password change,
 * "sign out everywhere", disabling or demoting) forgets the user's entries at once; another app
 * process forgets them within AUTH_CACHE_SECONDS.
 */
export const AUTH_CACHE_SECONDS = 5;
const MAX_ENTRIES = 10_000;

type TEntry = { user: User; apiTokenId?: string; expires: number };

const globalCache = globalThis as unknown as { xclawAuthCache?: Map<string, TEntry> };
const entries = (globalCache.xclawAuthCache ??= new Map<string, TEntry>());

export function cachedAuth(key: string): TEntry | undefined {
  const entry = entries.get(key);
  if (!entry) return undefined;
  if (entry.expires < Date.now()) {
    entries.delete(key);
    return undefined;
  }
  return entry;
}

export function rememberAuth(key: string, value: { user: User; apiTokenId?: string }): void {
  if (entries.size >= MAX_ENTRIES) {
    // Oldest first: a Map iterates in insertion order.
    for (const old of entries.keys()) {
      entries.delete(old);
      if (entries.size < MAX_ENTRIES * 0.9) break;
    }
  }
  entries.set(key, { ...value, expires: Date.now() + AUTH_CACHE_SECONDS * 1000 });
}

/** Forgets every remembered credential of one user (or of everyone). */
export function forgetAuth(userId?: string): void {
  if (!userId) return entries.clear();
  for (const [key, entry] of entries) if (entry.user.id === userId) entries.delete(key);
}
