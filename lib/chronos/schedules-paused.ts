import { db } from "@/lib/db/client";

/**
 * The administrators' global switch: while it is on, no schedule starts a run (slots that pass
 * are not made up later). "Run now" and alert triage are not schedules and keep working; a single
 * job is paused with its own switch (pausedByAdmin).
 */
const KEY = "chronos.schedulesPaused";

export async function areSchedulesPaused(): Promise<boolean> {
  const setting = await db().setting.findUnique({ where: { key: KEY } });
  return setting?.value === true;
}

export async function setSchedulesPaused(paused: boolean): Promise<void> {
  await db().setting.upsert({ where: { key: KEY }, create: { key: KEY, value: paused }, update: { value: paused } });
}
