import { z } from "zod";
import { AppError } from "@/lib/errors";
import { isEventTrigger, type TAnyJobDefinition } from "./define-job";

/**
 * A set of job definitions, indexed: by id (invoke, the runner) and by event name (sendEvent).
 * The engine works on a registry it is given and never imports the catalog, so job definitions in
 * other domains can use the engine without an import cycle.
 */
export type TJobRegistry = {
  readonly jobs: readonly TAnyJobDefinition[];
  get(jobId: string): TAnyJobDefinition | undefined;
  /** Jobs triggered by this event name. */
  listenersOf(eventName: string): readonly TAnyJobDefinition[];
  /** Validates an event for every job it triggers; returns each job's parsed data. */
  parseEvent(event: { name: string; data?: unknown }): { job: TAnyJobDefinition; data: unknown }[];
  /** Validates invocation data for a job (its schema). */
  parseInvokeData(jobId: string, data: unknown): unknown;
};

const registries = new WeakMap<readonly TAnyJobDefinition[], TJobRegistry>();

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid data";
  const where = issue.path.length ? `data.${issue.path.join(".")}` : "data";
  return `${where}: ${issue.message}`;
}

export function createJobRegistry(jobs: readonly TAnyJobDefinition[]): TJobRegistry {
  const cached = registries.get(jobs);
  if (cached) return cached;
  const byId = new Map<string, TAnyJobDefinition>();
  const byEvent = new Map<string, TAnyJobDefinition[]>();
  for (const job of jobs) {
    if (byId.has(job.id)) throw new Error(`Two job definitions have the id "${job.id}".`);
    byId.set(job.id, job);
    if (isEventTrigger(job.trigger)) byEvent.set(job.trigger.event, [...(byEvent.get(job.trigger.event) ?? []), job]);
  }
  const registry: TJobRegistry = {
    jobs,
    get: (jobId) => byId.get(jobId),
    listenersOf: (eventName) => byEvent.get(eventName) ?? [],
    parseEvent(event) {
      const listeners = byEvent.get(event.name);
      if (!listeners) {
        const known = [...byEvent.keys()].sort();
        throw new AppError(
          "bad_request",
          `Unknown event "${event.name}": no job is triggered by it.${known.length ? ` Known events: ${known.join(", ")}.` : ""}`,
        );
      }
      return listeners.map((job) => {
        const parsed = job.schema.safeParse(event.data ?? {});
        if (!parsed.success) throw new AppError("bad_request", `Event "${event.name}" is not valid for job "${job.id}": ${describeIssue(parsed.error)}.`);
        return { job, data: parsed.data };
      });
    },
    parseInvokeData(jobId, data) {
      const job = byId.get(jobId);
      if (!job) throw new AppError("bad_request", `Unknown job "${jobId}": it is not in the job catalog (lib/app/job-catalog.ts).`);
      const parsed = job.schema.safeParse(data ?? {});
      if (!parsed.success) throw new AppError("bad_request", `Data for job "${jobId}" is not valid: ${describeIssue(parsed.error)}.`);
      return parsed.data;
    },
  };
  registries.set(jobs, registry);
  return registry;
}
