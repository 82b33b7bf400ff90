import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChronosJob, Prisma } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import { assertOwnChannels } from "@/lib/notifications/channels";
import type { TToolRisk } from "@/lib/tools/registry";
import type { TChronosExecutionStatus, TChronosJobView, TChronosToolChoice } from "@/lib/wire/chronos";
import { describeSchedule, nextRunAfter, parseSchedule, storedScheduleOf, toScheduleInput, ZSchedule, type TStoredSchedule } from "./schedule";

/**
 * A user's scheduled jobs: create, change, pause, delete, list. Every query filters by the owner;
 * another user's job is "not found". The tools a job may use are checked against the tool catalog
 * the caller passes in (the capabilities' tools; this folder sits below them in the layering).
 */
export type TToolCatalogEntry = { name: string; description: string; risk: TToolRisk };

/** Always in a job's tools: without it a job could never tell anyone anything. */
export const NOTIFY_TOOL = "notify";
/** Never in a job's tools: jobs do not create, change or start jobs. */
export const CRON_MANAGE_TOOL = "cron_manage";

const ZName = z.string().trim().min(1, "Give the job a name.").max(100, "Job names are at most 100 characters.");
const ZPrompt = z.string().trim().min(1, "Write what the job should do (the task prompt).").max(20_000, "The task prompt is at most 20000 characters.");
const ZTools = z.array(z.string().min(1).max(100)).max(100, "At most 100 tools.");
const ZChannels = z.array(z.string().max(100)).max(50, "At most 50 channels.");

export const ZCreateJob = z.strictObject({
  name: ZName,
  schedule: ZSchedule,
  prompt: ZPrompt,
  tools: ZTools.optional(),
  maxSteps: z.int("maxSteps must be a whole number.").min(1, "maxSteps must be at least 1.").optional(),
  timeoutSeconds: z.int("timeoutSeconds must be a whole number.").min(10, "timeoutSeconds must be at least 10.").optional(),
  channels: ZChannels.optional(),
  enabled: z.boolean().optional(),
});
export type TCreateJobInput = z.infer<typeof ZCreateJob>;

export const ZUpdateJob = ZCreateJob.partial();
export type TUpdateJobInput = z.infer<typeof ZUpdateJob>;

/** The tools a job may choose from, with the ones a new job gets by default (read-only ones and notify). */
export function jobToolChoices(catalog: readonly TToolCatalogEntry[]): TChronosToolChoice[] {
  return catalog
    .filter((tool) => tool.name !== CRON_MANAGE_TOOL)
    .map((tool) => ({ name: tool.name, description: tool.description, risk: tool.risk, recommended: tool.risk === "read" || tool.name === NOTIFY_TOOL, required: tool.name === NOTIFY_TOOL }));
}

export function defaultJobTools(catalog: readonly TToolCatalogEntry[]): string[] {
  return jobToolChoices(catalog)
    .filter((tool) => tool.recommended)
    .map((tool) => tool.name);
}

function checkedTools(requested: readonly string[], catalog: readonly TToolCatalogEntry[]): string[] {
  const known = new Set(catalog.map((tool) => tool.name));
  for (const name of requested) {
    if (name === CRON_MANAGE_TOOL) throw new AppError("bad_request", "cron_manage cannot be used by a scheduled job: jobs do not create, change or start jobs.");
    if (!known.has(name)) throw new AppError("bad_request", `Unknown tool "${name}". Available: ${[...known].filter((tool) => tool !== CRON_MANAGE_TOOL).join(", ")}.`);
  }
  return [...new Set([...requested, NOTIFY_TOOL])];
}

function limitsOf(input: { maxSteps?: number; timeoutSeconds?: number }) {
  const settings = getBehaviourConfig().chronos;
  if (input.maxSteps !== undefined && input.maxSteps > settings.maxMaxSteps) {
    throw new AppError("bad_request", `maxSteps can be at most ${settings.maxMaxSteps} (chronos.maxMaxSteps).`);
  }
  if (input.timeoutSeconds !== undefined && input.timeoutSeconds > settings.maxTimeoutSeconds) {
    throw new AppError("bad_request", `timeoutSeconds can be at most ${settings.maxTimeoutSeconds} (chronos.maxTimeoutSeconds).`);
  }
}

function scheduleColumns(schedule: TStoredSchedule) {
  return {
    scheduleKind: schedule.kind,
    cron: schedule.kind === "CRON" ? schedule.cron : null,
    timezone: schedule.kind === "CRON" ? schedule.timezone : null,
    everyMinutes: schedule.kind === "EVERY" ? schedule.everyMinutes : null,
    anchorAt: schedule.kind === "EVERY" ? schedule.anchorAt : null,
    runAt: schedule.kind === "AT" ? schedule.runAt : null,
  };
}

/** When a job with this schedule and state runs next (null: not scheduled). */
export function plannedNextRun(schedule: TStoredSchedule, state: { enabled: boolean; pausedByAdmin: boolean }, now = new Date()): Date | null {
  if (!state.enabled || state.pausedByAdmin) return null;
  return nextRunAfter(schedule, now);
}

export function executionStatusName(status: ChronosJob["lastStatus"]): TChronosExecutionStatus | null {
  return status ? (status.toLowerCase() as TChronosExecutionStatus) : null;
}

export function toJobView(row: ChronosJob): TChronosJobView {
  const schedule = storedScheduleOf(row);
  return {
    id: row.id,
    name: row.name,
    schedule: toScheduleInput(schedule),
    scheduleText: describeSchedule(schedule),
    prompt: row.prompt,
    tools: row.tools,
    maxSteps: row.maxSteps,
    timeoutSeconds: row.timeoutSeconds,
    channels: row.channelIds,
    enabled: row.enabled,
    pausedByAdmin: row.pausedByAdmin,
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
    lastRunAt: row.lastRunAt?.toISOString() ?? null,
    lastStatus: executionStatusName(row.lastStatus),
    running: row.runningExecutionId !== null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listJobs(options: { userId: string }): Promise<ChronosJob[]> {
  return db().chronosJob.findMany({ where: { userId: options.userId }, orderBy: { createdAt: "asc" } });
}

export async function getJobOrThrow(options: { userId: string; jobId: string }): Promise<ChronosJob> {
  const id = z.uuid().safeParse(options.jobId);
  const job = id.success ? await db().chronosJob.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!job) throw new AppError("not_found", "No such job.");
  return job;
}

/** The user's enabled channels, the default for new jobs and endpoints. */
export async function enabledChannelIds(userId: string): Promise<string[]> {
  const rows = await db().notificationChannel.findMany({ where: { userId, enabled: true }, select: { id: true }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => row.id);
}

export async function createJob(options: { userId: string; input: TCreateJobInput; catalog: readonly TToolCatalogEntry[]; now?: Date }): Promise<ChronosJob> {
  const { userId, input, catalog } = options;
  const settings = getBehaviourConfig().chronos;
  const now = options.now ?? new Date();
  limitsOf(input);
  const schedule = parseSchedule(input.schedule, { minIntervalMinutes: settings.minIntervalMinutes, now });
  const tools = checkedTools(input.tools ?? defaultJobTools(catalog), catalog);
  const channelIds = input.channels ? await assertOwnChannels(userId, input.channels) : await enabledChannelIds(userId);
  if ((await db().chronosJob.count({ where: { userId } })) >= settings.maxJobsPerUser) {
    throw new AppError("conflict", `You already have ${settings.maxJobsPerUser} jobs (chronos.maxJobsPerUser). Delete one you no longer need first.`);
  }
  const enabled = input.enabled ?? true;
  return db().chronosJob.create({
    data: {
      userId,
      name: storableText(input.name),
      ...scheduleColumns(schedule),
      prompt: storableText(input.prompt),
      tools,
      maxSteps: input.maxSteps ?? settings.defaultMaxSteps,
      timeoutSeconds: input.timeoutSeconds ?? settings.defaultTimeoutSeconds,
      channelIds,
      enabled,
      nextRunAt: plannedNextRun(schedule, { enabled, pausedByAdmin: false }, now),
    },
  });
}

export async function updateJob(options: { userId: string; jobId: string; input: TUpdateJobInput; catalog: readonly TToolCatalogEntry[]; now?: Date }): Promise<ChronosJob> {
  const { userId, input, catalog } = options;
  const job = await getJobOrThrow(options);
  const settings = getBehaviourConfig().chronos;
  const now = options.now ?? new Date();
  limitsOf(input);
  const data: Prisma.ChronosJobUpdateInput = {};
  let schedule = storedScheduleOf(job);
  if (input.schedule !== undefined) {
    schedule = parseSchedule(input.schedule, { minIntervalMinutes: settings.minIntervalMinutes, now });
    Object.assign(data, scheduleColumns(schedule));
  }
  if (input.name !== undefined) data.name = storableText(input.name);
  if (input.prompt !== undefined) data.prompt = storableText(input.prompt);
  if (input.tools !== undefined) data.tools = checkedTools(input.tools, catalog);
  if (input.maxSteps !== undefined) data.maxSteps = input.maxSteps;
  if (input.timeoutSeconds !== undefined) data.timeoutSeconds = input.timeoutSeconds;
  if (input.channels !== undefined) data.channelIds = await assertOwnChannels(userId, input.channels);
  const enabled = input.enabled ?? job.enabled;
  if (input.enabled !== undefined) data.enabled = enabled;
  if (input.schedule !== undefined || input.enabled !== undefined) {
    // A new schedule or a resume starts from now: no catch-up for the time it was paused.
    data.nextRunAt = plannedNextRun(schedule, { enabled, pausedByAdmin: job.pausedByAdmin }, now);
  }
  // Conditional on the owner, like every write here.
  const { count } = await db().chronosJob.updateMany({ where: { id: job.id, userId }, data: data as Prisma.ChronosJobUpdateManyMutationInput });
  if (!count) throw new AppError("not_found", "No such job.");
  return db().chronosJob.findUniqueOrThrow({ where: { id: job.id } });
}

/** Deletes a job with its history; the sessions (traces) of its runs stay in the user's sessions. */
export async function deleteJob(options: { userId: string; jobId: string }): Promise<void> {
  const job = await getJobOrThrow(options);
  await db().chronosJob.deleteMany({ where: { id: job.id, userId: options.userId } });
}
