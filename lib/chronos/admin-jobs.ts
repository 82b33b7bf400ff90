import { z } from "zod";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { TAdminChronosJobView } from "@/lib/wire/chronos";
import { plannedNextRun, toJobView } from "./jobs-store";
import { storedScheduleOf } from "./schedule";

/** Administrators see every user's scheduled jobs and can pause any of them (only they can resume it). */
export const ZAdminPauseJob = z.strictObject({ paused: z.boolean() });
export const ZSchedulesPaused = z.strictObject({ paused: z.boolean() });

export async function listAllJobs(options: { limit?: number } = {}): Promise<TAdminChronosJobView[]> {
  const rows = await db().chronosJob.findMany({ include: { user: { select: { email: true } } }, orderBy: { createdAt: "asc" }, take: options.limit ?? 500 });
  return rows.map(({ user, ...job }) => ({ ...toJobView(job), ownerEmail: user.email }));
}

export async function setJobPausedByAdmin(options: { jobId: string; paused: boolean; now?: Date }): Promise<TAdminChronosJobView> {
  const id = z.uuid().safeParse(options.jobId);
  const job = id.success ? await db().chronosJob.findUnique({ where: { id: id.data }, include: { user: { select: { email: true } } } }) : null;
  if (!job) throw new AppError("not_found", "No such job.");
  const nextRunAt = plannedNextRun(storedScheduleOf(job), { enabled: job.enabled, pausedByAdmin: options.paused }, options.now);
  const { user, ...updated } = await db().chronosJob.update({
    where: { id: job.id },
    data: { pausedByAdmin: options.paused, nextRunAt },
    include: { user: { select: { email: true } } },
  });
  return { ...toJobView(updated), ownerEmail: user.email };
}
