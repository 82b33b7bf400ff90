import pg from "pg";
import { RunStopped } from "@/lib/agent/stop-reasons";
import { dbPool } from "@/lib/db/client";
import { storableJsonText } from "@/lib/db/storable";
import { createLogger } from "@/lib/observability/logger";
import type { TLocalRun } from "./local-runs";
import type { TRemoteFollowOptions, TRunEventBus } from "./run-event-bus";
import type { TRunEvent } from "./run-types";

/**
 * The run event bus for several app processes on one PostgreSQL database.
 *
 * Events are copied to the database only on demand: a process that wants to follow a run it does
 * not execute sends `want` over NOTIFY; the owner then writes the log so far as a batch and keeps
 * writing batches every FLUSH_MS while someone keeps wanting it. A run nobody follows from
 * elsewhere costs no writes at all, which matters with a thousand streaming runs. Each batch write
 * notifies followers, who read the batches after the last one they saw. Stop is a NOTIFY to the
 * owner (backed up by the session row's stop flag, read on every heartbeat). Batches are deleted
 * shortly after their run ends.
 */
const CHANNEL = "xclaw_runs";
const FLUSH_MS = 25;
/** A follower renews its interest this often; the owner stops copying after WANT_TTL_MS without it. */
const WANT_RENEW_MS = 10_000;
const WANT_TTL_MS = 30_000;
const POLL_MS = 1_000;
const ALIVE_CHECK_MS = 3_000;
/** How long batches outlive their run, for followers still reading the tail. */
const KEEP_AFTER_END_MS = 60_000;

const log = createLogger("run-bus");

type TMessage = { t: "want" | "batch" | "stop"; r: string; s?: number };

type TReplica = {
  run: TLocalRun;
  flushed: number;
  seq: number;
  wantedUntil: number;
  timer: NodeJS.Timeout | undefined;
  writing: Promise<void>;
};

export class PostgresRunEventBus implements TRunEventBus {
  readonly kind = "postgres" as const;
  private listener: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private closed = false;
  private readonly replicas = new Map<string, TReplica>();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly url: string) {}

  private listen(): Promise<pg.Client> {
    if (this.listener) return Promise.resolve(this.listener);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url });
      client.on("error", (error) => {
        log.warn("run event listener lost its connection; reconnecting", { error });
        if (this.listener === client) this.listener = undefined;
        void client.end().catch(() => {});
        // Followers poll meanwhile; reconnect so `want` and `stop` reach this process again.
        setTimeout(() => {
          if (!this.closed && (this.replicas.size || this.waiters.size)) void this.listen().catch(() => {});
        }, 1_000).unref();
      });
      client.on("notification", (message) => {
        if (message.channel === CHANNEL && message.payload) this.onMessage(message.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      this.listener = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private onMessage(payload: string) {
    let message: TMessage;
    try {
      message = JSON.parse(payload) as TMessage;
    } catch {
      return;
    }
    if (message.t === "want") {
      const replica = this.replicas.get(message.r);
      if (!replica) return;
      replica.wantedUntil = Date.now() + WANT_TTL_MS;
      this.scheduleFlush(replica, 0);
    } else if (message.t === "batch") {
      for (const wake of [...(this.waiters.get(message.r) ?? [])]) wake();
    } else if (message.t === "stop") {
      this.replicas.get(message.r)?.run.controller.abort(new RunStopped("user"));
    }
  }

  private notify(message: TMessage): Promise<unknown> {
    return dbPool().query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify(message)]);
  }

  private scheduleFlush(replica: TReplica, delayMs: number) {
    if (replica.timer) return;
    replica.timer = setTimeout(() => {
      replica.timer = undefined;
      replica.writing = replica.writing.then(() => this.flush(replica));
    }, delayMs);
  }

  private async flush(replica: TReplica) {
    const { run } = replica;
    if (replica.flushed >= run.events.length) return;
    const events = run.events.slice(replica.flushed);
    replica.flushed = run.events.length;
    const seq = ++replica.seq;
    try {
      await dbPool().query(
        `WITH inserted AS (
           INSERT INTO "run_event_batches" ("runId", "sessionId", "seq", "events") VALUES ($1::uuid, $2::uuid, $3, $4::jsonb) RETURNING 1
         ) SELECT pg_notify($5, $6) FROM inserted`,
        [run.id, run.sessionId, seq, storableJsonText(events), CHANNEL, JSON.stringify({ t: "batch", r: run.id, s: seq } satisfies TMessage)],
      );
    } catch (error) {
      log.warn("could not copy run events for another process", { runId: run.id, error });
    }
  }

  attach(run: TLocalRun): void {
    const replica: TReplica = { run, flushed: 0, seq: 0, wantedUntil: 0, timer: undefined, writing: Promise.resolve() };
    this.replicas.set(run.id, replica);
    void this.listen().catch((error) => log.warn("cannot listen for run events", { error }));
    const onPublish = () => {
      if (!run.done) {
        if (replica.wantedUntil > Date.now()) this.scheduleFlush(replica, FLUSH_MS);
        return;
      }
      run.listeners.delete(onPublish);
      this.replicas.delete(run.id);
      clearTimeout(replica.timer);
      replica.timer = undefined;
      if (replica.seq === 0 && replica.wantedUntil === 0) return;
      replica.writing = replica.writing.then(() => this.flush(replica));
      void replica.writing.then(() => {
        setTimeout(() => {
          void dbPool()
            .query(`DELETE FROM "run_event_batches" WHERE "runId" = $1::uuid`, [run.id])
            .catch(() => {});
        }, KEEP_AFTER_END_MS).unref();
      });
    };
    run.listeners.add(onPublish);
  }

  async *followRemote(options: TRemoteFollowOptions): AsyncIterable<TRunEvent> {
    const { runId, signal } = options;
    await this.listen();
    let wake: () => void = () => {};
    const waiters = this.waiters.get(runId) ?? new Set();
    this.waiters.set(runId, waiters);
    const onWake = () => wake();
    waiters.add(onWake);
    try {
      await this.notify({ t: "want", r: runId });
      let lastSeq = 0;
      let lastWant = Date.now();
      let lastAliveCheck = Date.now();
      while (!signal?.aborted) {
        const { rows } = await dbPool().query<{ seq: number; events: TRunEvent[] }>(
          `SELECT "seq", "events" FROM "run_event_batches" WHERE "runId" = $1::uuid AND "seq" > $2 ORDER BY "seq"`,
          [runId, lastSeq],
        );
        for (const row of rows) {
          lastSeq = row.seq;
          for (const event of row.events) {
            yield event;
            if (event.type === "run-end") return;
          }
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(finish, POLL_MS);
          function finish() {
            clearTimeout(timer);
            signal?.removeEventListener("abort", finish);
            wake = () => {};
            resolve();
          }
          wake = finish;
          signal?.addEventListener("abort", finish, { once: true });
        });
        const now = Date.now();
        // NOTIFY reaches only processes already listening: an owner still opening its LISTEN
        // connection (its first run, a busy event loop) misses the first `want`. So until the first
        // batch arrives the follower asks again on every poll, then every WANT_RENEW_MS.
        if (now - lastWant >= (lastSeq === 0 ? POLL_MS : WANT_RENEW_MS)) {
          lastWant = now;
          await this.notify({ t: "want", r: runId });
        }
        if (now - lastAliveCheck >= ALIVE_CHECK_MS) {
          lastAliveCheck = now;
          // The owner is gone (or the run ended without anyone copying its end): stop following.
          if (!(await options.isAlive())) {
            const { rows: tail } = await dbPool().query<{ seq: number; events: TRunEvent[] }>(
              `SELECT "seq", "events" FROM "run_event_batches" WHERE "runId" = $1::uuid AND "seq" > $2 ORDER BY "seq"`,
              [runId, lastSeq],
            );
            for (const row of tail) for (const event of row.events) yield event;
            return;
          }
        }
      }
    } finally {
      waiters.delete(onWake);
      if (!waiters.size) this.waiters.delete(runId);
    }
  }

  async requestStop(runId: string): Promise<void> {
    const local = this.replicas.get(runId);
    if (local) {
      local.run.controller.abort(new RunStopped("user"));
      return;
    }
    await this.notify({ t: "stop", r: runId });
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }
}
