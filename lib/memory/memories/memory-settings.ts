import { db } from "@/lib/db/client";

/** A user's memory switches; no row means the defaults. */
export async function getMemorySettings(userId: string): Promise<{ autoExtract: boolean }> {
  const row = await db().memorySettings.findUnique({ where: { userId } });
  return { autoExtract: row?.autoExtract ?? true };
}

export async function setMemorySettings(userId: string, settings: { autoExtract: boolean }): Promise<{ autoExtract: boolean }> {
  const row = await db().memorySettings.upsert({ where: { userId }, create: { userId, autoExtract: settings.autoExtract }, update: { autoExtract: settings.autoExtract } });
  return { autoExtract: row.autoExtract };
}
