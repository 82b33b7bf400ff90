import { Cron } from "croner";
import { durationToMs } from "inngest";
import { z } from "zod";
import { compileKeyExpression } from "./key-expression";

/**
 * A background job, written once and run by either backend: the embedded runner (lib/jobs/
 * job-runner.ts, the default) or Inngest (lib/jobs/inngest-adapter.ts). The definition is plain
 * data plus a handler; nothing here knows which backend runs it.
 *
 * The handler must be deterministic between steps: every side effect goes in a `step.run`, whose
 * result is stored and returned on replay (after a crash, a sleep, a retry) instead of running
 * the step again.
 */

/** Milliseconds, or a string such as "30s", "5m", "1h30m", "2d" (Inngest's duration format). */
export type TDuration = number | string;

export type TJobEvent<TData> = {
  /** The event id (the caller's, or a generated one); cron slots and invocations get one too. */
  id: string;
  name: string;
  data: TData;
};

export type TSendEventInput = {
  name: string;
  data?: unknown;
  id?: string;
  /** Start the runs no earlier than this (a delayed event; Inngest's `ts`). Default: now. */
  ts?: Date;
};

export type TInvokeOptions<TData, TResult> = {
  job: TJobDefinition<TData, TResult>;
  data: TData;
  /** How long to wait for the child run; then the step fails with a timeout. Default one year. */
  timeout?: TDuration;
};

export type TStepTools = {
  /**
   * Runs `fn` once per run: its result is stored (it must be JSON-serialisable and at most
   * jobs.maxStepOutputBytes) and a replay returns the stored result. The value passes through
   * JSON on both backends, so a Date comes back as an ISO string.
   */
  run<TResult>(id: string, fn: () => TResult | Promise<TResult>): Promise<Awaited<TResult>>;
  /** Parks the run; it continues after `duration`, also across restarts. */
  sleep(id: string, duration: TDuration): Promise<void>;
  sleepUntil(id: string, until: Date | string): Promise<void>;
  /** Sends events once per run (validated like `sendEvent`); returns their ids. */
  sendEvent(id: string, events: TSendEventInput | TSendEventInput[]): Promise<{ ids: string[] }>;
  /** Runs another job as a child and returns its result, or throws its error or a timeout. */
  invoke<TData, TResult>(id: string, options: TInvokeOptions<TData, TResult>): Promise<TResult>;
};

export type TJobContext<TData> = {
  event: TJobEvent<TData>;
  step: TStepTools;
  /** Aborted when the run is cancelled (admin, singleton "cancel", timeouts.finish) or its
   *  process shuts down; pass it to fetch and other slow calls. Never aborted on Inngest, which
   *  cancels between steps. */
  signal: AbortSignal;
  /** Zero-based attempt number. */
  attempt: number;
  runId: string;
};

export type TJobTrigger = { event: string } | { cron: string; tz?: string };

/**
 * A key is an expression over the event, `event.data.<path>`, the form Inngest evaluates (CEL) and
 * the embedded runner evaluates with a plain property lookup. Without a key the limit applies to
 * all runs of the job.
 */
export type TKeyedLimit = { key?: string; limit: number };
export type TSingleton = { key?: string; mode: "skip" | "cancel" };

export type TJobOptions<TSchema extends z.ZodType> = {
  /** Stable id, also the Inngest function id: lower case, digits, ".", "-" and "_". */
  id: string;
  trigger: TJobTrigger;
  /** The event payload's schema; required for event triggers, checked when the event is sent. */
  schema?: TSchema;
  /** At most `limit` runs with the same key execute at once, across processes. */
  concurrency?: TKeyedLimit;
  /** One run per key at a time: "skip" drops new runs while one is in progress (also while it
   *  sleeps), "cancel" cancels the one in progress and starts the new one. */
  singleton?: TSingleton;
  /** Retries after the first attempt, 0–20 (default 3, as on Inngest). */
  retries?: number;
  /** Cancel the run if it has not started within `start`, or not finished `finish` after its
   *  first start. */
  timeouts?: { start?: TDuration; finish?: TDuration };
};

export type TJobHandler<TData, TResult> = (context: TJobContext<TData>) => Promise<TResult>;

export type TJobDefinition<TData = unknown, TResult = unknown> = {
  readonly id: string;
  readonly trigger: TJobTrigger;
  readonly schema: z.ZodType<TData>;
  readonly concurrency?: TKeyedLimit;
  readonly singleton?: TSingleton;
  readonly retries: number;
  readonly timeouts: { start?: TDuration; finish?: TDuration };
  /** Parsed once at definition time, so a typo fails at start-up rather than at the first run. */
  readonly startTimeoutMs?: number;
  readonly finishTimeoutMs?: number;
  readonly concurrencyKeyOf?: (data: unknown) => string;
  readonly singletonKeyOf?: (data: unknown) => string;
  readonly handler: TJobHandler<TData, TResult>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TAnyJobDefinition = TJobDefinition<any, any>;

const JOB_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/** Cron data for the handler of a cron job; the embedded runner adds the slot it fires for. */
const ZCronData = z.looseObject({});

export function isEventTrigger(trigger: TJobTrigger): trigger is { event: string } {
  return "event" in trigger;
}

export function durationMs(value: TDuration, name: string): number {
  try {
    return durationToMs(value, { name });
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message} Use milliseconds or a string such as "30s", "5m" or "1h30m".`);
  }
}

/**
 * Checks a cron expression the way both backends need it: exactly five fields (minute precision;
 * croner would also take a seconds field and Inngest would not) and a valid IANA time zone.
 */
export function validateCron(expression: string, timezone: string | undefined, where: string): void {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || expression.trim().startsWith("@")) {
    throw new Error(
      `${where}: cron "${expression}" must have exactly five fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *". Seconds and @-shortcuts are not supported.`,
    );
  }
  try {
    new Cron(expression, { mode: "5-part", timezone, paused: true }).nextRun();
  } catch (error) {
    throw new Error(`${where}: cron "${expression}"${timezone ? ` in ${timezone}` : ""} is not valid: ${(error as Error).message}`);
  }
}

export function defineJob<TSchema extends z.ZodType = z.ZodType<Record<string, unknown>>, TResult = unknown>(
  options: TJobOptions<TSchema>,
  handler: TJobHandler<z.output<TSchema>, TResult>,
): TJobDefinition<z.output<TSchema>, TResult> {
  const where = `job "${options.id}"`;
  if (!JOB_ID.test(options.id)) throw new Error(`${where}: the id must be lower case letters, digits, ".", "-" or "_" (at most 100).`);
  const { trigger } = options;
  if (isEventTrigger(trigger)) {
    if (!EVENT_NAME.test(trigger.event) || trigger.event.startsWith("inngest/")) {
      throw new Error(`${where}: "${trigger.event}" is not a valid event name (letters, digits, ".", "_", ":", "/", "-"; not "inngest/…").`);
    }
    if (!options.schema) throw new Error(`${where}: an event trigger needs a zod schema for the event data.`);
  } else {
    validateCron(trigger.cron, trigger.tz, where);
  }
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) throw new Error(`${where}: retries must be a whole number from 0 to 20.`);
  if (options.concurrency) {
    const { limit } = options.concurrency;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) throw new Error(`${where}: concurrency.limit must be a whole number from 1 to 1000.`);
  }
  const concurrencyKeyOf = options.concurrency ? keyFunction(options.id, options.concurrency.key, `${where} concurrency.key`) : undefined;
  const singletonKeyOf = options.singleton ? keyFunction(options.id, options.singleton.key, `${where} singleton.key`) : undefined;
  if (options.singleton && options.singleton.mode !== "skip" && options.singleton.mode !== "cancel") {
    throw new Error(`${where}: singleton.mode must be "skip" or "cancel".`);
  }
  const timeouts = options.timeouts ?? {};
  return Object.freeze({
    id: options.id,
    trigger,
    schema: (options.schema ?? ZCronData) as z.ZodType<z.output<TSchema>>,
    concurrency: options.concurrency,
    singleton: options.singleton,
    retries,
    timeouts,
    startTimeoutMs: timeouts.start === undefined ? undefined : durationMs(timeouts.start, `${where} timeouts.start`),
    finishTimeoutMs: timeouts.finish === undefined ? undefined : durationMs(timeouts.finish, `${where} timeouts.finish`),
    concurrencyKeyOf,
    singletonKeyOf,
    handler,
  });
}

/** Keys are scoped to the job, as Inngest scopes function-level keys. */
function keyFunction(jobId: string, expression: string | undefined, where: string): (data: unknown) => string {
  if (expression === undefined) return () => jobId;
  const evaluate = compileKeyExpression(expression, where);
  return (data) => `${jobId}:${evaluate(data)}`;
}
