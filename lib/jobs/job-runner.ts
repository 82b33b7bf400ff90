import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Cron } from "croner";
import pg from "pg";
import { databaseUrl, isEmbeddedDatabaseUrl } from "@/lib/db/client";
import { createLogger } from "@/lib/observability/logger";
import type { TAnyJobDefinition } from "./define-job";
import { JobExecution } from "./job-execution";
import { createJobRegistry, type TJobRegistry } from "./job-registry";
import { enqueueCronRun, scheduleCron } from "./cron-runs";
import { claimJobRuns, renewJobLeases, type TClaimedJobRun } from "./job-queue/claim";
import { sweepJobRuns } from "./job-queue/finish";
import { JOBS_CHANNEL, jobsBus } from "./wake-bus";

/**
 * The embedded runner: claims due runs from the database and executes them, up to `concurrency`
 * at once, in whatever process it is started in (each Next.js server process, a test, a script).
 * Any number of runners may share one database; the run rows are the only shared state.
 *
 * It wakes on the in-process bus and (PostgreSQL) on NOTIFY, and polls every `pollIntervalMs` as a
 * fallback and for sleeps that come due. A heartbeat renews the leases of the runs it executes
 * and picks up cancel requests and finish timeouts; a slower sweep ends timed-out runs. Cron jobs
 * are scheduled with croner in every runner; each slot gets an event id, so only one run per
 * slot is created however many processes fire it.
 */
const log = createLogger("jobs");

export type TJobRunnerOptions = {
  jobs: readonly TAnyJobDefinition[];
  /** Lease owner id; default host:pid:random. */
  id?: string;
  concurrency?: number;
  leaseMs?: number;
  pollIntervalMs?: number;
  maxStepOutputBytes?: number;
  retryBaseDelayMs?: number;
  /** Schedule cron-triggered jobs (default true). */
  cron?: boolean;
  /** LISTEN for other processes' NOTIFY (default: on PostgreSQL; never on the embedded PGlite). */
  listen?: boolean;
};

export type TJobRunner = {
  readonly id: string;
  readonly registry: TJobRegistry;
  start(): Promise<void>;
  /**
   * Stops claiming, lets executing runs finish for `graceMs`, then aborts the rest at their next
   * step boundary and hands them back to the queue (without using up an attempt).
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /** Look for work now. */
  wake(): void;
  /** Runs executing in this process. */
  activeRunIds(): string[];
};

export const RUNNER_DEFAULTS = {
  concurrency: 10,
  leaseMs: 30_000,
  pollIntervalMs: 1_000,
  maxStepOutputBytes: 512 * 1024,
  retryBaseDelayMs: 1_000,
};

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export function createJobRunner(options: TJobRunnerOptions): TJobRunner {
  return new JobRunner(options);
}

class JobRunner implements TJobRunner {
  readonly id: string;
  readonly registry: TJobRegistry;
  private readonly settings: typeof RUNNER_DEFAULTS & { cron: boolean; listen: boolean | undefined };
  private readonly executions = new Map<string, { execution: JobExecution; done: Promise<void> }>();
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private wakePending = false;
  private keyedFirst = false;
  private wakeWaiter: (() => void) | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private crons: Cron[] = [];
  private listener: pg.Client | undefined;
  private beating: Promise<void> | undefined;
  private readonly onWork = () => this.wake();
  private readonly onCancel = (runId: string) => {
    if (this.executions.has(runId)) void this.heartbeat();
  };

  constructor(options: TJobRunnerOptions) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.registry = createJobRegistry(options.jobs);
    this.settings = {
      concurrency: options.concurrency ?? RUNNER_DEFAULTS.concurrency,
      leaseMs: options.leaseMs ?? RUNNER_DEFAULTS.leaseMs,
      pollIntervalMs: options.pollIntervalMs ?? RUNNER_DEFAULTS.pollIntervalMs,
      maxStepOutputBytes: options.maxStepOutputBytes ?? RUNNER_DEFAULTS.maxStepOutputBytes,
      retryBaseDelayMs: options.retryBaseDelayMs ?? RUNNER_DEFAULTS.retryBaseDelayMs,
      cron: options.cron ?? true,
      listen: options.listen,
    };
  }

  async start(): Promise<void> {
    if (this.state !== "new") throw new Error("A job runner starts once; create a new one.");
    this.state = "running";
    const bus = jobsBus();
    bus.on("work", this.onWork);
    bus.on("cancel", this.onCancel);
    if (this.settings.listen ?? !isEmbeddedDatabaseUrl(databaseUrl())) await this.listen();
    if (this.settings.cron) this.scheduleCrons();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(200, Math.floor(this.settings.leaseMs / 3)));
    this.heartbeatTimer.unref();
    this.sweepTimer = setInterval(() => void this.sweep(), Math.max(1_000, this.settings.pollIntervalMs * 5));
    this.sweepTimer.unref();
    this.loopDone = this.loop();
    log.info("job runner started", { runner: this.id, jobs: this.registry.jobs.length, concurrency: this.settings.concurrency });
  }

  wake(): void {
    const waiter = this.wakeWaiter;
    if (waiter) {
      this.wakeWaiter = undefined;
      waiter();
    } else {
      this.wakePending = true;
    }
  }

  activeRunIds(): string[] {
    return [...this.executions.keys()];
  }

  private waitForWake(ms: number): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      // Referenced on purpose: a runner started from a plain script keeps that process alive.
      const timer = setTimeout(() => {
        this.wakeWaiter = undefined;
        resolve();
      }, ms);
      this.wakeWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.state === "running") {
      const free = this.settings.concurrency - this.executions.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const { runs, keyedCrowdedOut } = await claimJobRuns(this.id, free, this.settings.leaseMs, { keyedFirst: this.keyedFirst });
          // Runs with keys were due but all slots went to others: serve them first next time.
          this.keyedFirst = keyedCrowdedOut;
          failures = 0;
          claimed = runs.length;
          for (const run of runs) {
            if (run.takenOver) log.warn("job run taken over after its worker's lease expired", { runId: run.id, jobId: run.jobId, attempt: run.attempt });
            this.startExecution(run);
          }
        } catch (error) {
          failures += 1;
          log.warn("job runner could not claim runs", { runner: this.id, error: (error as Error).message });
          await delay(Math.min(30_000, this.settings.pollIntervalMs * 2 ** Math.min(failures, 5)));
          continue;
        }
      }
      // A full batch suggests more is waiting: claim again straight away.
      if (claimed > 0 && claimed === free) continue;
      await this.waitForWake(this.settings.pollIntervalMs);
    }
  }

  private startExecution(run: TClaimedJobRun): void {
    const execution = new JobExecution(run, {
      owner: this.id,
      registry: this.registry,
      maxStepOutputBytes: this.settings.maxStepOutputBytes,
      retryBaseDelayMs: this.settings.retryBaseDelayMs,
    });
    const done = execution
      .execute()
      .then((outcome) => {
        if (outcome?.kind === "park") this.wakeAt(outcome.wakeAt.getTime());
        if (outcome?.kind === "retry") this.wakeAt(Date.now() + outcome.delayMs);
        if (outcome?.kind === "failed") log.warn("job run failed", { runId: run.id, jobId: run.jobId, error: outcome.error });
      })
      .catch((error: unknown) => {
        // The database went away mid-run: the lease expires and a runner takes the run over.
        log.error("job run execution broke off", { runId: run.id, jobId: run.jobId, error: (error as Error).message });
      })
      .finally(() => {
        this.executions.delete(run.id);
        this.wake();
      });
    this.executions.set(run.id, { execution, done });
  }

  /** A timer for work this runner knows will come due soon (sleeps, retry backoff). */
  private wakeAt(at: number): void {
    const wait = at - Date.now();
    if (wait > 60_000 || this.state !== "running") return;
    setTimeout(() => this.wake(), Math.max(0, wait) + 5).unref();
  }

  private heartbeat(): Promise<void> {
    if (this.beating) return this.beating;
    if (!this.executions.size) return Promise.resolve();
    // Runs in this snapshot were claimed (committed) before the renewal starts, so each of them
    // that is still ours is in its result; one that is missing was taken over.
    const mine = new Map(this.executions);
    this.beating = renewJobLeases(this.id, this.settings.leaseMs)
      .then((rows) => {
        const held = new Set(rows.map((row) => row.id));
        for (const row of rows) {
          const entry = mine.get(row.id);
          if (!entry) continue;
          if (row.cancelRequested) entry.execution.cancel(row.error ?? "Cancelled.");
          else if (row.timedOut) {
            entry.execution.cancel(`Cancelled: it did not finish within ${Math.round((row.finishTimeoutMs ?? 0) / 1000)} s (timeouts.finish).`);
          }
        }
        for (const [id, entry] of mine) if (!held.has(id) && this.executions.get(id) === entry) entry.execution.leaseLost();
      })
      .catch((error: unknown) => log.warn("job runner heartbeat failed", { runner: this.id, error: (error as Error).message }))
      .finally(() => {
        this.beating = undefined;
      });
    return this.beating;
  }

  private async sweep(): Promise<void> {
    try {
      if (await sweepJobRuns()) this.wake();
    } catch (error) {
      log.warn("job runner sweep failed", { runner: this.id, error: (error as Error).message });
    }
  }

  private scheduleCrons(): void {
    for (const job of this.registry.jobs) {
      const scheduled = scheduleCron(job, (slot) => {
        enqueueCronRun(job, { slot }).catch((error: unknown) => log.error("could not queue a cron run", { jobId: job.id, error: (error as Error).message }));
      });
      if (scheduled) this.crons.push(scheduled);
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl() });
    const retry = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => {});
      if (this.state !== "running") return;
      // Polling covers the gap; reconnect in the background.
      setTimeout(() => void this.listen().catch(() => retry()), 1_000).unref();
    };
    client.on("notification", (message) => {
      if (message.payload === "work") this.wake();
      else if (message.payload?.startsWith("cancel:")) this.onCancel(message.payload.slice("cancel:".length));
    });
    client.on("error", retry);
    client.on("end", retry);
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      this.wake();
    } catch (error) {
      log.warn("job runner cannot LISTEN; polling only until it can", { runner: this.id, error: (error as Error).message });
      retry();
    }
  }

  async stop(options: { graceMs?: number } = {}): Promise<void> {
    if (this.state === "stopped" || this.state === "new") {
      this.state = "stopped";
      return;
    }
    if (this.state === "stopping") {
      await this.loopDone;
      return;
    }
    this.state = "stopping";
    this.wake();
    const bus = jobsBus();
    bus.off("work", this.onWork);
    bus.off("cancel", this.onCancel);
    for (const cron of this.crons) cron.stop();
    this.crons = [];
    clearInterval(this.sweepTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    await this.loopDone;
    const settled = () => Promise.allSettled([...this.executions.values()].map((entry) => entry.done));
    await Promise.race([settled(), delay(options.graceMs ?? 10_000)]);
    if (this.executions.size) {
      for (const entry of this.executions.values()) entry.execution.release();
      // Steps already running get a moment to finish and be stored; after that the process may
      // exit and the leases expire on their own.
      await Promise.race([settled(), delay(2_000)]);
    }
    clearInterval(this.heartbeatTimer);
    this.state = "stopped";
    log.info("job runner stopped", { runner: this.id });
  }
}
