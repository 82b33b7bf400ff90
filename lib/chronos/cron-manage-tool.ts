import { z } from "zod";
import { db } from "@/lib/db/client";
import type { ChronosJob } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { sendEvent } from "@/lib/jobs/send-event";
import { defineTool, type TTool, type TToolContext, type TToolResult } from "@/lib/tools/registry";
import { RUN_NOW_EVENT } from "./events";
import { createJob, deleteJob, getJobOrThrow, listJobs, toJobView, updateJob, ZCreateJob, ZUpdateJob, type TToolCatalogEntry } from "./jobs-store";

/**
 * cron_manage: the chat agent manages its owner's scheduled jobs. `list` and `run` act at once;
 * `add`, `update` and `remove` change what runs unattended later, so they are `write` risk and ask
 * for approval (the card shows the schedule, prompt and tools). The tool catalog comes from the
 * capabilities that create this tool (they sit above this folder in the layering).
 */
const ZJobFields = z
  .object({
    id: z.string().max(100).optional().describe("The job's id (update, remove, run); the name works too when it is unique"),
    name: z.string().max(100).optional(),
    schedule: z
      .union([z.object({ cron: z.string(), tz: z.string() }), z.object({ everyMinutes: z.number() }), z.object({ at: z.string() })])
      .optional()
      .describe('{"cron": "0 9 * * 1-5", "tz": "Europe/Berlin"} | {"everyMinutes": 30} | {"at": "2026-12-24T18:00:00Z"}'),
    prompt: z.string().max(20_000).optional().describe("The task the job's run carries out"),
    tools: z.array(z.string()).optional().describe("Tool names the run may use; default: the read-only tools and notify"),
    maxSteps: z.number().optional(),
    timeoutSeconds: z.number().optional(),
    channels: z.array(z.string()).optional().describe("Notification channel ids; default: all enabled channels"),
    enabled: z.boolean().optional(),
  })
  .optional();

const ZInput = z.object({
  action: z.enum(["list", "add", "update", "remove", "run"]),
  job: ZJobFields,
});
type TInput = z.infer<typeof ZInput>;

function failure(text: string): TToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function describeError(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof z.ZodError) return error.issues.map((issue) => `${issue.path.join(".") || "job"}: ${issue.message}`).join("; ");
  throw error;
}

async function findJob(context: TToolContext, job: TInput["job"]): Promise<ChronosJob> {
  if (job?.id && z.uuid().safeParse(job.id).success) return getJobOrThrow({ userId: context.userId, jobId: job.id });
  const name = job?.id ?? job?.name;
  if (!name) throw new AppError("bad_request", "Say which job: job.id (or job.name).");
  const matches = await db().chronosJob.findMany({ where: { userId: context.userId, name } });
  if (matches.length !== 1) throw new AppError("not_found", matches.length ? `${matches.length} jobs are called "${name}"; use the id.` : `No job called "${name}". Use action "list" to see your jobs.`);
  return matches[0]!;
}

function line(job: ChronosJob): string {
  const view = toJobView(job);
  const state = !view.enabled ? "paused" : view.pausedByAdmin ? "paused by an administrator" : `next ${view.nextRunAt ?? "—"}`;
  return `- ${view.name} (${view.id}): ${view.scheduleText}; ${state}; last ${view.lastStatus ?? "never ran"}; tools ${view.tools.join(", ")}`;
}

function fields(job: TInput["job"]) {
  const { id: _id, ...rest } = job ?? {};
  return rest;
}

export function createCronManageTool(options: { catalog: () => readonly TToolCatalogEntry[] }): TTool {
  return defineTool({
    name: "cron_manage",
    description:
      "Manage the user's scheduled jobs (unattended agent runs on a schedule, see /jobs). action: list | add (job: name, schedule, prompt, optional tools, maxSteps, timeoutSeconds, channels, enabled) | update (job.id plus the fields to change) | remove (job.id) | run (job.id: start it now). Jobs run with read-only tools plus notify by default, stay silent when all is well and notify when not.",
    input: ZInput,
    risk: "write",
    riskOf: ({ action }) => (action === "list" || action === "run" ? "read" : "write"),
    preview: async ({ action, job }, context) => {
      if (action === "add") {
        const schedule = job?.schedule ? JSON.stringify(job.schedule) : "(no schedule)";
        return { title: `Create the scheduled job "${job?.name ?? "?"}"`, command: `${schedule}\n\n${job?.prompt ?? ""}`, detail: `Tools: ${job?.tools?.join(", ") ?? "read-only tools and notify"}` };
      }
      const target = await findJob(context, job).then(
        (found) => `"${found.name}"`,
        () => `"${job?.id ?? job?.name ?? "?"}"`,
      );
      if (action === "remove") return { title: `Delete the scheduled job ${target} and its history` };
      return { title: `Change the scheduled job ${target}`, command: JSON.stringify(fields(job), null, 2) };
    },
    async execute({ action, job }, context) {
      try {
        switch (action) {
          case "list": {
            const jobs = await listJobs({ userId: context.userId });
            return jobs.length ? `${jobs.length} scheduled job${jobs.length === 1 ? "" : "s"}:\n${jobs.map(line).join("\n")}` : "No scheduled jobs yet.";
          }
          case "add": {
            const created = await createJob({ userId: context.userId, input: ZCreateJob.parse(fields(job)), catalog: options.catalog() });
            return `Created:\n${line(created)}`;
          }
          case "update": {
            const found = await findJob(context, job);
            const updated = await updateJob({ userId: context.userId, jobId: found.id, input: ZUpdateJob.parse(fields(job)), catalog: options.catalog() });
            return `Updated:\n${line(updated)}`;
          }
          case "remove": {
            const found = await findJob(context, job);
            await deleteJob({ userId: context.userId, jobId: found.id });
            return `Deleted the job "${found.name}" and its history.`;
          }
          case "run": {
            const found = await findJob(context, job);
            if (found.pausedByAdmin) return failure(`"${found.name}" was paused by an administrator and cannot run now.`);
            if (found.runningExecutionId) return failure(`"${found.name}" is already running; wait for that run to finish.`);
            await sendEvent({ name: RUN_NOW_EVENT, data: { jobId: found.id, userId: context.userId, requestedBy: `chat ${context.sessionId}` } });
            return `Started a run of "${found.name}". Its result shows in the job's history on /jobs; if it finds a problem, a notification arrives.`;
          }
        }
      } catch (error) {
        return failure(describeError(error));
      }
    },
  });
}
