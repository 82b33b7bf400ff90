import { NonRetriableError } from "inngest";
import { db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { durationMs, type TAnyJobDefinition, type TInvokeOptions, type TSendEventInput, type TStepTools } from "./define-job";
import type { TJobRegistry } from "./job-registry";
import { prepareEvents } from "./prepare-events";
import { announceEnqueued, enqueueEventsInTransaction, insertJobRuns, notifyWork, type TNewJobRun } from "./job-queue/enqueue";
import { finishJobRun, type TJobRunOutcome } from "./job-queue/finish";
import { readJobRunResult, saveJobStep, type TJobStepWrite, type TStoredJobStep } from "./job-queue/job-steps";
import { type TClaimedJobRun } from "./job-queue/claim";
import { INTERRUPT_PRIORITY, never, STOP, type TInterrupt } from "./job-interrupts";
import { retryAfterMs, retryDelayMs } from "./retry-delay";
import { describeThrown, toStoredJson } from "./step-output";
import { newJobRunFor } from "./job-queue/new-job-run";

/**
 * One execution of a claimed run on the embedded runner: the handler runs from the top, and the
 * step tools return memoized results for steps that already ran. Anything that cannot continue in
 * this execution — a sleep, an invoke waiting for its child, a step failure with attempts left, a
 * cancel, a lost lease — is an interrupt: the step's promise never settles (so the handler cannot
 * catch it and carry on), steps already started are allowed to finish and are stored, and the run
 * is parked, retried or ended. A later execution replays up to where this one stopped.
 */
const log = createLogger("jobs");

const SHORT_SLEEP_MS = 1_000;
const DEFAULT_INVOKE_TIMEOUT_MS = 365 * 24 * 3600 * 1000;

export type TJobExecutionOptions = {
  owner: string;
  registry: TJobRegistry;
  maxStepOutputBytes: number;
  retryBaseDelayMs: number;
};

export class JobExecution {
  readonly runId: string;
  private readonly controller = new AbortController();
  private readonly steps = new Map<string, TStoredJobStep>();
  private readonly usedIds = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private interrupt: TInterrupt | undefined;
  private resolveInterrupt!: () => void;
  private readonly interrupted = new Promise<void>((resolve) => (this.resolveInterrupt = resolve));
  private readonly job: TAnyJobDefinition | undefined;

  constructor(
    private readonly run: TClaimedJobRun,
    private readonly options: TJobExecutionOptions,
  ) {
    this.runId = run.id;
    this.job = options.registry.get(run.jobId);
  }

  /** Cancel (admin, singleton replacement, timeouts.finish): abort the handler and end CANCELLED. */
  cancel(reason: string): void {
    this.raise({ kind: "cancelled", reason });
    this.controller.abort(new Error(reason));
  }

  /** Shutdown: stop at the next step boundary and give the run back to the queue. */
  release(): void {
    this.raise({ kind: "release" });
    this.controller.abort(new Error("The app is shutting down; the run continues in another process or after the restart."));
  }

  /** Another worker took the run over: stop without writing anything. */
  leaseLost(): void {
    this.raise({ kind: "lease-lost" });
    this.controller.abort(new Error("This worker lost the run's lease; another worker continues it."));
  }

  private raise(interrupt: TInterrupt): void {
    const current = this.interrupt;
    if (current && INTERRUPT_PRIORITY[current.kind] < INTERRUPT_PRIORITY[interrupt.kind]) return;
    if (current?.kind === "park" && interrupt.kind === "park" && current.wakeAt <= interrupt.wakeAt) return;
    this.interrupt = interrupt;
    this.resolveInterrupt();
  }

  private get stopping(): boolean {
    return this.interrupt !== undefined;
  }

  async execute(): Promise<TJobRunOutcome | undefined> {
    const outcome = await this.decide();
    // Steps that already started finish and are stored before the run is parked or ended.
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
    const final = this.interrupt?.kind === "lease-lost" ? undefined : (this.interruptOutcome() ?? outcome);
    if (!final) return undefined;
    const { applied } = await finishJobRun(this.options.owner, this.runId, final);
    if (!applied) log.warn("job run finished by another worker", { runId: this.runId, jobId: this.run.jobId });
    return applied ? final : undefined;
  }

  private interruptOutcome(): TJobRunOutcome | undefined {
    const interrupt = this.interrupt;
    if (!interrupt || interrupt.kind === "lease-lost") return undefined;
    if (interrupt.kind === "park") return { kind: "park", wakeAt: interrupt.wakeAt };
    if (interrupt.kind === "cancelled") return { kind: "cancelled", error: interrupt.reason };
    if (interrupt.kind === "release") return { kind: "release" };
    return { kind: "retry", error: interrupt.error, delayMs: interrupt.delayMs ?? retryDelayMs(this.run.attempt, this.options.retryBaseDelayMs) };
  }

  private async decide(): Promise<TJobRunOutcome | undefined> {
    const { run, job } = this;
    if (!job) return { kind: "failed", error: `Unknown job "${run.jobId}": no job with this id is in the catalog of this app version.` };
    if (run.attempt >= run.maxAttempts) {
      return { kind: "failed", error: `Gave up after ${run.maxAttempts} attempt(s): the process running it stopped answering (crash or kill) on the last one.` };
    }
    for (const step of run.steps) this.steps.set(step.stepId, step);
    const handler = (async () =>
      job.handler({
        event: { id: run.eventId, name: run.eventName, data: run.data },
        step: this.tools(),
        signal: this.controller.signal,
        attempt: run.attempt,
        runId: run.id,
      }))();
    const settled = await Promise.race([
      handler.then(
        (value) => ({ returned: true as const, value }),
        (error: unknown) => ({ returned: false as const, error }),
      ),
      this.interrupted.then(() => undefined),
    ]);
    if (!settled || this.stopping) return undefined;
    if (settled.returned) {
      try {
        return { kind: "completed", outputJson: toStoredJson(`job "${job.id}"`, settled.value, this.options.maxStepOutputBytes).json };
      } catch (error) {
        return { kind: "failed", error: (error as Error).message };
      }
    }
    return this.failure(settled.error);
  }

  /** A handler error: retry while attempts remain, unless it says retrying is pointless. */
  private failure(error: unknown): TJobRunOutcome {
    const message = describeThrown(error);
    const last = this.run.attempt + 1 >= this.run.maxAttempts;
    if (last || error instanceof NonRetriableError) return { kind: "failed", error: message };
    return { kind: "retry", error: message, delayMs: retryAfterMs(error) ?? retryDelayMs(this.run.attempt, this.options.retryBaseDelayMs) };
  }

  private uniqueId(id: string): string {
    if (typeof id !== "string" || !id) throw new NonRetriableError("A step needs a non-empty string id.");
    const seen = this.usedIds.get(id) ?? 0;
    this.usedIds.set(id, seen + 1);
    return seen === 0 ? id : `${id}:${seen}`;
  }

  /**
   * Runs a step's work, tracked so the execution waits for it to settle (and be stored) before it
   * parks or ends the run. Work returns STOP when the step cannot go on in this execution; the
   * handler then gets a promise that never settles.
   */
  private step<T>(work: () => Promise<T | typeof STOP>): Promise<T> {
    const promise = work();
    this.inFlight.add(promise);
    const forget = () => this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise.then((value) => (value === STOP ? never() : (value as T)));
  }

  /** Stores a step if this worker still holds the run; false (and the execution stops) if not. */
  private async save(step: TJobStepWrite): Promise<boolean> {
    const saved = await saveJobStep(this.options.owner, step);
    if (!saved) {
      this.leaseLost();
      return false;
    }
    this.remember(step);
    return true;
  }

  private remember(step: TJobStepWrite): void {
    this.steps.set(step.stepId, {
      stepId: step.stepId,
      kind: step.kind,
      status: step.status,
      output: step.outputJson ? JSON.parse(step.outputJson) : null,
      error: step.error ?? null,
      wakeAt: step.wakeAt ?? null,
      childRunId: step.childRunId ?? null,
    });
  }

  /**
   * A step's own failure. With attempts left (and a retriable error) the run is retried from the
   * top; on the last attempt the failure is stored and thrown into the handler, which may catch it.
   */
  private async stepFailed(stepId: string, kind: TJobStepWrite["kind"], error: unknown, startedAt: Date): Promise<typeof STOP> {
    // A step that fails because the run is being cancelled or released failed for that reason only.
    if (this.stopping) return STOP;
    const nonRetriable = error instanceof NonRetriableError || isAppError(error);
    const message = describeThrown(error);
    if (!nonRetriable && this.run.attempt + 1 < this.run.maxAttempts) {
      this.raise({ kind: "retry", error: `step "${stepId}": ${message}`, delayMs: retryAfterMs(error) });
      return STOP;
    }
    if (!(await this.save({ runId: this.runId, stepId, kind, status: "FAILED", error: message, startedAt }))) return STOP;
    throw nonRetriable && !(error instanceof NonRetriableError) ? new NonRetriableError(message) : error;
  }

  private replayed(stepId: string): { done: true; value: unknown } | { done: false; step?: TStoredJobStep } {
    const step = this.steps.get(stepId);
    if (step?.status === "COMPLETED") return { done: true, value: step.output?.value ?? null };
    // Stored failures were final (last attempt, or not retriable); a replay meets them again.
    if (step?.status === "FAILED") throw new NonRetriableError(step.error ?? "The step failed.");
    return { done: false, step };
  }

  /** Common start of every step: its unique id, a memoized result, or "stop". */
  private begin(id: string): { stepId: string; memo: ReturnType<JobExecution["replayed"]> } {
    const stepId = this.uniqueId(id);
    return { stepId, memo: this.replayed(stepId) };
  }

  private tools(): TStepTools {
    return {
      run: async (id, fn) => {
        const { stepId, memo } = this.begin(id);
        if (memo.done) return memo.value as never;
        if (this.stopping) return never();
        return this.step<never>(async () => {
          const startedAt = new Date();
          let stored: { json: string; value: unknown };
          try {
            stored = toStoredJson(`step "${stepId}"`, await fn(), this.options.maxStepOutputBytes);
          } catch (error) {
            return this.stepFailed(stepId, "run", error, startedAt);
          }
          const saved = await this.save({ runId: this.runId, stepId, kind: "run", status: "COMPLETED", outputJson: JSON.stringify({ value: stored.value }), startedAt });
          return saved ? (stored.value as never) : STOP;
        });
      },

      sleep: async (id, duration) => {
        const { stepId, memo } = this.begin(id);
        return this.sleepStep(stepId, memo, () => new Date(Date.now() + durationMs(duration, `step.sleep("${id}")`)));
      },

      sleepUntil: async (id, until) => {
        const { stepId, memo } = this.begin(id);
        return this.sleepStep(stepId, memo, () => {
          const date = until instanceof Date ? until : new Date(until);
          if (Number.isNaN(date.getTime())) throw new NonRetriableError(`step.sleepUntil("${id}"): "${String(until)}" is not a date.`);
          return date;
        });
      },

      sendEvent: async (id, events) => {
        const { stepId, memo } = this.begin(id);
        if (memo.done) return memo.value as { ids: string[] };
        if (this.stopping) return never();
        return this.step(() => this.sendEventsStep(stepId, Array.isArray(events) ? events : [events]));
      },

      invoke: async (id, options) => {
        const { stepId, memo } = this.begin(id);
        if (memo.done) return memo.value as never;
        if (this.stopping) return never();
        return this.step(() => this.invokeStep(stepId, memo.step, options as TInvokeOptions<unknown, unknown>)) as never;
      },
    };
  }

  private sleepStep(stepId: string, memo: ReturnType<JobExecution["replayed"]>, wakeAtOf: () => Date): Promise<void> {
    if (memo.done) return Promise.resolve();
    if (this.stopping) return never();
    return this.step(async () => {
      const startedAt = new Date();
      let wakeAt = memo.step?.wakeAt ?? undefined;
      if (!wakeAt) {
        try {
          wakeAt = wakeAtOf();
        } catch (error) {
          return this.stepFailed(stepId, "sleep", error, startedAt);
        }
      }
      const remaining = wakeAt.getTime() - Date.now();
      if (remaining >= SHORT_SLEEP_MS) {
        if (!(await this.save({ runId: this.runId, stepId, kind: "sleep", status: "SLEEPING", wakeAt, startedAt }))) return STOP;
        this.raise({ kind: "park", wakeAt });
        return STOP;
      }
      // A short wait (or the last moment of a long one, given clocks a little apart) is not worth
      // a round trip through the queue: wait here, abortably, holding the lease.
      if (remaining > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          this.controller.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (this.stopping) return STOP;
      }
      return (await this.save({ runId: this.runId, stepId, kind: "sleep", status: "COMPLETED", wakeAt, startedAt })) ? undefined : STOP;
    });
  }

  private async sendEventsStep(stepId: string, events: TSendEventInput[]): Promise<{ ids: string[] } | typeof STOP> {
    const startedAt = new Date();
    let prepared;
    try {
      // Ids derived from the run and step, so that a replay after a crash between the send and the
      // step's row cannot send twice (the event ids dedupe).
      prepared = prepareEvents(
        this.options.registry,
        events.map((event, index) => ({ ...event, id: event.id ?? `${this.runId}:${stepId}:${index}` })),
      );
    } catch (error) {
      return this.stepFailed(stepId, "send-event", error, startedAt);
    }
    const ids = prepared.map((event) => event.id);
    const step: TJobStepWrite = { runId: this.runId, stepId, kind: "send-event", status: "COMPLETED", outputJson: JSON.stringify({ value: { ids } }), startedAt };
    const result = await db().$transaction(async (tx) => ((await saveJobStep(this.options.owner, step, tx)) ? enqueueEventsInTransaction(tx, prepared) : undefined));
    if (!result) {
      this.leaseLost();
      return STOP;
    }
    announceEnqueued(result);
    this.remember(step);
    return { ids };
  }

  private async invokeStep(stepId: string, waiting: TStoredJobStep | undefined, options: TInvokeOptions<unknown, unknown>): Promise<unknown> {
    const startedAt = new Date();
    if (waiting?.status === "WAITING" && waiting.childRunId && waiting.wakeAt) {
      const child = await readJobRunResult(waiting.childRunId);
      const childJob = child?.jobId ?? options?.job?.id;
      if (child?.status === "COMPLETED") {
        const value = child.output ?? null;
        const saved = await this.save({ runId: this.runId, stepId, kind: "invoke", status: "COMPLETED", outputJson: JSON.stringify({ value }), childRunId: waiting.childRunId, startedAt });
        return saved ? value : STOP;
      }
      if (!child || child.status === "FAILED" || child.status === "CANCELLED") {
        const reason = `step "${stepId}": job "${childJob}" ${child ? child.status.toLowerCase() : "is gone"}: ${child?.error ?? "no result"}`;
        return this.stepFailed(stepId, "invoke", new NonRetriableError(reason), startedAt);
      }
      if (waiting.wakeAt.getTime() <= Date.now()) {
        return this.stepFailed(stepId, "invoke", new NonRetriableError(`step "${stepId}": job "${childJob}" did not finish within the invoke timeout.`), startedAt);
      }
      this.raise({ kind: "park", wakeAt: waiting.wakeAt });
      return STOP;
    }
    let child: { wakeAt: Date; run: TNewJobRun };
    try {
      const job = options?.job;
      if (!job || typeof job.id !== "string") throw new NonRetriableError(`step.invoke("${stepId}") needs { job, data }.`);
      const data = this.options.registry.parseInvokeData(job.id, options.data);
      const timeoutMs = options.timeout === undefined ? DEFAULT_INVOKE_TIMEOUT_MS : durationMs(options.timeout, `step.invoke("${stepId}") timeout`);
      const definition = this.options.registry.get(job.id)!;
      child = {
        wakeAt: new Date(Date.now() + timeoutMs),
        // Written directly (insertRuns), without the singleton skip/cancel decision that sent
        // events go through: the parent waits for this very run.
        run: { ...newJobRunFor(definition, data, { trigger: `invoke from ${this.run.jobId}`, eventName: "jobs/invoke", eventId: `invoke:${this.runId}:${stepId}`, parentRunId: this.runId }), singletonMode: undefined },
      };
    } catch (error) {
      return this.stepFailed(stepId, "invoke", isAppError(error) ? new NonRetriableError(error.message) : error, startedAt);
    }
    const step: TJobStepWrite = { runId: this.runId, stepId, kind: "invoke", status: "WAITING", wakeAt: child.wakeAt, childRunId: child.run.id, startedAt };
    const created = await db().$transaction(async (tx) => {
      if (!(await saveJobStep(this.options.owner, step, tx))) return false;
      // The step row and the child run commit together: a replay finds the child, never makes two.
      await insertJobRuns(tx, [child.run]);
      await notifyWork(tx);
      return true;
    });
    if (!created) {
      this.leaseLost();
      return STOP;
    }
    this.remember(step);
    announceEnqueued({ runIds: [child.run.id], cancelRequested: [] });
    this.raise({ kind: "park", wakeAt: child.wakeAt });
    return STOP;
  }
}
