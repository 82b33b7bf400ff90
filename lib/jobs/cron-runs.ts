import { Cron } from "croner";
import type { TAnyJobDefinition } from "./define-job";
import { newJobRunFor } from "./job-queue/new-job-run";
import { enqueueEvents, newJobRunId, type TEnqueueResult } from "./job-queue/enqueue";

/**
 * Cron jobs on the embedded runner. Every runner schedules every cron job with croner (in the
 * job's time zone, UTC by default as on Inngest); when a slot comes, each process enqueues the run
 * under the event id `cron:<job>:<slot>`, so however many processes fire, one run is created.
 * Slots missed while no process was running are not made up (Inngest does not either).
 */
export function cronOf(job: TAnyJobDefinition): { cron: string; timezone: string } | undefined {
  return "cron" in job.trigger ? { cron: job.trigger.cron, timezone: job.trigger.tz ?? "UTC" } : undefined;
}

export function scheduleCron(job: TAnyJobDefinition, fire: (slot: Date) => void): Cron | undefined {
  const schedule = cronOf(job);
  if (!schedule) return undefined;
  return new Cron(schedule.cron, { timezone: schedule.timezone, mode: "5-part", unref: true, protect: true }, (self: Cron) => {
    fire(self.currentRun() ?? new Date());
  });
}

export function nextCronRun(job: TAnyJobDefinition): Date | undefined {
  const schedule = cronOf(job);
  if (!schedule) return undefined;
  return new Cron(schedule.cron, { timezone: schedule.timezone, mode: "5-part", paused: true }).nextRun() ?? undefined;
}

/**
 * Queues one run of a cron job: for a slot (`cron:<job>:<slot>`, deduplicated across processes)
 * or on demand (`manual:<job>:<uuid>`). Singleton settings apply as to any other run.
 */
export async function enqueueCronRun(job: TAnyJobDefinition, options: { slot: Date } | { manualBy: string }): Promise<TEnqueueResult> {
  const schedule = cronOf(job);
  if (!schedule) throw new Error(`job "${job.id}" is not a cron job`);
  const at = "slot" in options ? options.slot : new Date();
  const eventId = "slot" in options ? `cron:${job.id}:${at.toISOString()}` : `manual:${job.id}:${newJobRunId()}`;
  const data = { cron: schedule.cron, scheduledAt: at.toISOString() };
  return enqueueEvents([
    {
      id: eventId,
      name: "jobs/cron",
      runs: [newJobRunFor(job, data, { trigger: "slot" in options ? `cron ${schedule.cron} (${schedule.timezone})` : `run now by ${options.manualBy}`, eventName: "jobs/cron", eventId })],
    },
  ]);
}
