import { LRUCache } from "lru-cache";
import { db } from "@/lib/db/client";
import { processSingleton } from "@/lib/process-singleton";

/** A user's memory switches; no row means the defaults. */
export async function getMemorySettings(userId: string): Promise<{ autoExtract: boolean }> {
  const row = await db().memorySettings.findUnique({ where: { userId } });
  return { autoExtract: row?.autoExtract ?? true };
}

export async function setMemorySettings(userId: string, settings: { autoExtract: boolean }): Promise<{ autoExtract: boolean }> {
  const row = await db().memorySettings.upsert({ where: { userId }, create: { userId, autoExtract: settings.autoExtract }, update: { autoExtract: settings.autoExtract } });
  recentSettings.delete(userId);
  return { autoExtract: row.autoExtract };
}

/**
 * The settings as this process read them in the last minute, for the signal sent after every run
 * (memory-capability.ts): a round trip per run saved. Changes made here are seen at once; a change
 * made in another process can at worst schedule one extraction that then does nothing, because the
 * extraction itself reads the settings again (extraction.ts). One cache for the process's module
 * graphs, like memory-presence.ts: chat runs started by the Node route (lib/http/server-hook.ts)
 * see a change made on the settings page at once.
 */
const recentSettings = processSingleton("memory.recent-settings", () => new LRUCache<string, { autoExtract: boolean }>({ max: 10_000, ttl: 60_000 }));

export async function getRecentMemorySettings(userId: string): Promise<{ autoExtract: boolean }> {
  const cached = recentSettings.get(userId);
  if (cached) return cached;
  const settings = await getMemorySettings(userId);
  recentSettings.set(userId, settings);
  return settings;
}
