import { LRUCache } from "lru-cache";
import type { User } from "@/lib/db/generated/client";
import { processSingleton } from "@/lib/process-singleton";

/**
 * Who a bearer token or session cookie belongs to, remembered for a few seconds: authentication is
 * on the path to every chat message's first token, and a chat sends several requests in a row.
 * Anything that ends access in this process (revoking a token, signing out, a password change,
 * "sign out everywhere", disabling or demoting) forgets the user's entries at once; another app
 * process forgets them within AUTH_CACHE_SECONDS.
 */
export const AUTH_CACHE_SECONDS = 5;

type TFound = { user: User; apiTokenId?: string };

// Bounded, least recently used out first; an answer older than AUTH_CACHE_SECONDS is never returned.
const entries = processSingleton("auth.cache", () => new LRUCache<string, TFound>({ max: 10_000, ttl: AUTH_CACHE_SECONDS * 1000 }));
// Lookups under way: a browser or client that sends ten chats at once waits for one lookup, not
// ten (each a statement, and for a token ten updates of its lastUsedAt row queued on its lock).
// Not lru-cache's fetch(): forgetting a lookup there rejects its first caller's promise, and the
// lookups under way cannot be listed to forget them all; here the caller still gets its answer.
const lookups = processSingleton("auth.lookups", () => new Map<string, Promise<TFound | undefined>>());

/**
 * The remembered answer for `key`, else the lookup already under way for it, else `lookup()`. An
 * answer is remembered only if nothing was forgotten while it was being looked up, so a lookup
 * that began before a revocation neither outlives it nor is shared with a request made after it.
 */
export function lookUpAuth(key: string, lookup: () => Promise<TFound | undefined>): Promise<TFound | undefined> {
  const cached = entries.get(key);
  if (cached) return Promise.resolve(cached);
  const pending = lookups.get(key);
  if (pending) return pending;
  const started = lookup().then(
    (found) => {
      if (lookups.get(key) === started) {
        lookups.delete(key);
        if (found) entries.set(key, found);
      }
      return found;
    },
    (error: unknown) => {
      if (lookups.get(key) === started) lookups.delete(key);
      throw error;
    },
  );
  lookups.set(key, started);
  return started;
}

/** Forgets every remembered credential of one user (or of everyone), and every lookup under way. */
export function forgetAuth(userId?: string): void {
  // A lookup under way has not said whose credential it is: forget them all (they are seconds old).
  lookups.clear();
  if (!userId) return entries.clear();
  // Collected first: deleting while lru-cache iterates is not something it promises to handle.
  const keys = [...entries.entries()].filter(([, entry]) => entry.user.id === userId).map(([key]) => key);
  for (const key of keys) entries.delete(key);
}
