import { NonRetriableError, referenceFunction, type Inngest } from "inngest";
import { isAppError } from "@/lib/errors";
import { durationMs, isEventTrigger, type TAnyJobDefinition, type TSendEventInput, type TStepTools } from "./define-job";
import type { TJobRegistry } from "./job-registry";
import { prepareEvents } from "./prepare-events";
import { toStoredJson } from "./step-output";

/**
 * Turns a job definition into an Inngest function with the same id, trigger, concurrency,
 * singleton, retries and timeouts, whose handler is the job's own handler given our step API
 * mapped onto Inngest's. Inngest memoizes steps, sleeps and retries itself; the adapter adds what
 * our contract promises on top: step results checked for JSON and size like on the embedded
 * runner, events validated against the catalog before step.sendEvent, invoke data validated
 * against the child's schema.
 */
type TTimeStr = `${number}s`;
type TRetries = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20;

function seconds(ms: number): TTimeStr {
  return `${Math.max(1, Math.ceil(ms / 1000))}s`;
}

function nonRetriable(error: unknown): unknown {
  return isAppError(error) ? new NonRetriableError(error.message) : error;
}

/** Inngest's own metadata rides along in invoked events' data; the job's schema must not see it. */
function withoutInngestMetadata(data: unknown): unknown {
  if (!data || typeof data !== "object" || !("_inngest" in data)) return data;
  const { _inngest: _ignored, ...rest } = data as Record<string, unknown>;
  return rest;
}

type TInngestStep = {
  run: (id: string, fn: () => unknown) => Promise<unknown>;
  sleep: (id: string, duration: number | string) => Promise<void>;
  sleepUntil: (id: string, until: Date | string) => Promise<void>;
  sendEvent: (id: string, events: { id?: string; name: string; data: unknown }[]) => Promise<{ ids: string[] }>;
  invoke: (id: string, options: { function: unknown; data: unknown; timeout?: number | string }) => Promise<unknown>;
};

export function adaptStepTools(step: TInngestStep, options: { registry: TJobRegistry; maxStepOutputBytes: number }): TStepTools {
  return {
    run: (id, fn) =>
      step.run(id, async () => toStoredJson(`step "${id}"`, await fn(), options.maxStepOutputBytes).value) as never,
    // Inngest counts sleeps in whole seconds and rounds down (1.5 s sleeps 1 s, also for
    // sleepUntil), while our contract is "no earlier than": round up instead.
    sleep: (id, duration) => step.sleep(id, seconds(durationMs(duration, `step.sleep "${id}"`))),
    sleepUntil: (id, until) => step.sleepUntil(id, new Date(new Date(until).getTime() + 1_000)),
    sendEvent: async (id, events) => {
      const list: TSendEventInput[] = Array.isArray(events) ? events : [events];
      let prepared;
      try {
        prepared = prepareEvents(options.registry, list);
      } catch (error) {
        throw nonRetriable(error);
      }
      const result = await step.sendEvent(
        id,
        prepared.map((event, index) => ({ id: event.id, name: event.name, data: list[index]!.data ?? {} })),
      );
      return { ids: result.ids };
    },
    invoke: async (id, { job, data, timeout }) => {
      try {
        options.registry.parseInvokeData(job.id, data);
      } catch (error) {
        throw nonRetriable(error);
      }
      return step.invoke(id, { function: referenceFunction({ functionId: job.id }), data, ...(timeout === undefined ? {} : { timeout }) }) as never;
    },
  };
}

export function toInngestFunction(client: Inngest, job: TAnyJobDefinition, options: { registry: TJobRegistry; maxStepOutputBytes: number }) {
  const { trigger } = job;
  const timeouts = {
    ...(job.startTimeoutMs === undefined ? {} : { start: seconds(job.startTimeoutMs) }),
    ...(job.finishTimeoutMs === undefined ? {} : { finish: seconds(job.finishTimeoutMs) }),
  };
  return client.createFunction(
    {
      id: job.id,
      triggers: [isEventTrigger(trigger) ? { event: trigger.event } : { cron: `TZ=${trigger.tz ?? "UTC"} ${trigger.cron}` }],
      retries: job.retries as TRetries,
      ...(job.concurrency ? { concurrency: { limit: job.concurrency.limit, ...(job.concurrency.key ? { key: job.concurrency.key } : {}) } } : {}),
      ...(job.singleton ? { singleton: { mode: job.singleton.mode, ...(job.singleton.key ? { key: job.singleton.key } : {}) } } : {}),
      ...(Object.keys(timeouts).length ? { timeouts } : {}),
    },
    async (context) => {
      const { event, runId, attempt } = context as unknown as { event: { id?: string; name: string; data?: unknown }; runId: string; attempt: number };
      const parsed = job.schema.safeParse(withoutInngestMetadata(event.data) ?? {});
      if (!parsed.success) throw new NonRetriableError(`Event "${event.name}" is not valid for job "${job.id}": ${parsed.error.issues[0]?.message ?? "invalid data"}.`);
      return job.handler({
        event: { id: event.id ?? runId, name: event.name, data: parsed.data },
        step: adaptStepTools(context.step as unknown as TInngestStep, options),
        // Inngest cancels between steps (its own cancel, singleton "cancel", timeouts), not inside a
        // request, so this signal never fires there.
        signal: new AbortController().signal,
        attempt,
        runId,
      });
    },
  );
}
