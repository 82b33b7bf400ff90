import type { TSendEventInput } from "./define-job";
import type { TJobRegistry } from "./job-registry";
import { prepareEvents } from "./prepare-events";
import { enqueueEvents } from "./job-queue/enqueue";

export type TSendEventResult = {
  /** The events' ids (the caller's or generated), in order. */
  ids: string[];
  /** Runs created on the embedded runner (none for ids already seen within 24 hours). */
  runIds: string[];
  /** Ids that were seen within the last 24 hours and therefore ignored. */
  duplicateIds: string[];
};

/**
 * Sends events to the embedded runner for the jobs of `registry`: validated first (nothing is
 * queued if any event is invalid), then recorded and their runs created in one transaction.
 */
export async function enqueueJobEvents(registry: TJobRegistry, events: TSendEventInput | readonly TSendEventInput[]): Promise<TSendEventResult> {
  const prepared = prepareEvents(registry, Array.isArray(events) ? events : [events as TSendEventInput]);
  const result = await enqueueEvents(prepared);
  return { ids: prepared.map((event) => event.id), runIds: result.runIds, duplicateIds: result.duplicateEventIds };
}
