import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { newJobRunId, type TNewJobRun } from "./enqueue";

/**
 * The run row a job gets for one event: its id, where it came from, and the job's retry,
 * concurrency, singleton and timeout settings applied to this event's data.
 */
export function newJobRunFor(job: TAnyJobDefinition, data: unknown, origin: { trigger: string; eventName: string; eventId: string; parentRunId?: string; delayMs?: number }): TNewJobRun {
  return {
    id: newJobRunId(),
    jobId: job.id,
    ...origin,
    data,
    maxAttempts: job.retries + 1,
    concurrencyKey: job.concurrencyKeyOf?.(data),
    concurrencyLimit: job.concurrency?.limit,
    singletonKey: job.singletonKeyOf?.(data),
    singletonMode: job.singleton?.mode,
    startTimeoutMs: job.startTimeoutMs,
    finishTimeoutMs: job.finishTimeoutMs,
  };
}
