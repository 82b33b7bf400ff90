import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import type { TSendEventInput } from "./define-job";
import { enqueueJobEvents, type TSendEventResult } from "./enqueue";
import type { Inngest } from "inngest";
import { inngestClient } from "./inngest-client";
import { installedJobs } from "./installed-jobs";
import { createJobRegistry, type TJobRegistry } from "./job-registry";
import { prepareEvents } from "./prepare-events";

export type { TSendEventResult };

/**
 * The app-side way to start jobs: `await sendEvent({ name: "alert.received", data, id })`.
 *
 * Every event is validated against the schema of each job it triggers before anything is sent,
 * and an unknown name is refused: a bad event is a clear 400-style AppError and nothing is
 * queued. An event id makes sending idempotent: a second send with the same id within 24 hours
 * does nothing. With jobs.runner: local the runs are created in this database (any app process's
 * runner picks them up); with inngest the events go to Inngest.
 *
 * Any domain may call it (the catalog installs the jobs at start, lib/jobs/installed-jobs.ts);
 * inside a job handler, send with step.sendEvent instead so the send is memoized.
 */
const log = createLogger("jobs");

export async function sendEvent(events: TSendEventInput | readonly TSendEventInput[]): Promise<TSendEventResult> {
  const registry = createJobRegistry(installedJobs());
  if (getBehaviourConfig().jobs.runner === "local") return enqueueJobEvents(registry, events);
  return sendToInngest(inngestClient(), registry, events);
}

/**
 * Hands events to Inngest after the same validation as the embedded runner (nothing is sent if
 * any event is invalid). Inngest starts the runs itself, so no run ids come back; a repeated event
 * id within 24 hours starts nothing there either.
 */
export async function sendToInngest(client: Inngest, registry: TJobRegistry, events: TSendEventInput | readonly TSendEventInput[]): Promise<TSendEventResult> {
  const list = Array.isArray(events) ? events : [events as TSendEventInput];
  const prepared = prepareEvents(registry, list);
  try {
    const sent = await client.send(
      prepared.map((event, index) => ({ id: event.id, name: event.name, data: (list[index]!.data ?? {}) as Record<string, unknown>, ts: list[index]!.ts?.getTime() })),
    );
    return { ids: sent.ids, runIds: [], duplicateIds: [] };
  } catch (error) {
    log.error("could not send events to Inngest", { error: (error as Error).message });
    throw new AppError("unavailable", "Could not hand the event to Inngest. Check INNGEST_EVENT_KEY / INNGEST_BASE_URL, or try again.", { cause: error });
  }
}
