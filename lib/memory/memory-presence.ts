import { LRUCache } from "lru-cache";
import { dbPool } from "@/lib/db/client";
import { processSingleton } from "@/lib/process-singleton";

/**
 * Whether a user has any memories or knowledge-base chunks at all, remembered briefly per process.
 * Recall asks before every run's first model call, and for most users most of the time the answer
 * does not change: caching it takes a database round trip off the way to the first token.
 *
 * Writes in this process forget the user's entry at once (saveMemory, document indexing), so a
 * memory saved here is recalled by the next message. A write in another process (a second app
 * process, an Inngest worker) is seen when the entry expires, at most PRESENCE_TTL_MS later: for that
 * long a brand-new user's first memory may not be recalled by a process that had looked before.
 * A stale "yes" only costs a search that finds nothing.
 */
export type TMemoryPresence = { hasMemories: boolean; hasChunks: boolean };

export const PRESENCE_TTL_MS = 30_000;

// One cache per process, not per module graph: a chat run (started by the Node route, in the
// instrumentation graph) must see the forgetting done by a route handler (lib/http/server-hook.ts).
const entries = processSingleton("memory.presence", () => new LRUCache<string, Promise<TMemoryPresence>>({ max: 10_000, ttl: PRESENCE_TTL_MS }));

async function readPresence(userId: string): Promise<TMemoryPresence> {
  const { rows } = await dbPool().query<{ has_memories: boolean; has_chunks: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM "memories" WHERE "userId" = $1::uuid) AS has_memories,
            EXISTS (SELECT 1 FROM "knowledge_chunks" WHERE "userId" = $1::uuid) AS has_chunks`,
    [userId],
  );
  return { hasMemories: rows[0]!.has_memories, hasChunks: rows[0]!.has_chunks };
}

export function memoryPresence(userId: string): Promise<TMemoryPresence> {
  const cached = entries.get(userId);
  if (cached) return cached;
  const presence = readPresence(userId);
  entries.set(userId, presence);
  // A failed read is not remembered: the next run asks again.
  presence.catch(() => {
    if (entries.get(userId) === presence) entries.delete(userId);
  });
  return presence;
}

/** A memory or chunk was written for this user: the next recall asks the database again. */
export function forgetMemoryPresence(userId: string): void {
  entries.delete(userId);
}
