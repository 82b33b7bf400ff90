import { randomUUID } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { TSendEventInput } from "./define-job";
import type { TJobRegistry } from "./job-registry";
import { newJobRunFor } from "./job-queue/new-job-run";
import type { TEventToEnqueue } from "./job-queue/enqueue";

/**
 * Turns events into the runs they start: every event is validated for every job it triggers
 * before anything is written, so an invalid event queues nothing (also when sent together with
 * valid ones). Event ids default to a random UUID; callers that may send twice pass their own.
 */
const EVENT_ID = /^[\w.:/@-]{1,200}$/;

export function prepareEvents(registry: TJobRegistry, events: readonly TSendEventInput[]): TEventToEnqueue[] {
  if (!events.length) throw new AppError("bad_request", "No events to send.");
  return events.map((event) => {
    if (!event || typeof event.name !== "string") throw new AppError("bad_request", "An event needs a name.");
    const id = event.id ?? randomUUID();
    if (typeof id !== "string" || !EVENT_ID.test(id)) {
      throw new AppError("bad_request", `Event id "${String(id)}" is not valid: use 1–200 letters, digits or . _ : / @ -.`);
    }
    if (event.ts !== undefined && !(event.ts instanceof Date && Number.isFinite(event.ts.getTime()))) {
      throw new AppError("bad_request", `Event ${event.name}: ts must be a valid date.`);
    }
    const delayMs = event.ts ? Math.max(0, event.ts.getTime() - Date.now()) : undefined;
    const runs = registry.parseEvent(event).map(({ job, data }) => newJobRunFor(job, data, { trigger: `event ${event.name}`, eventName: event.name, eventId: id, delayMs }));
    return { id, name: event.name, runs };
  });
}
