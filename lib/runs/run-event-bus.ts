import type { TLocalRun } from "./local-runs";
import type { TRunEvent } from "./run-types";

/**
 * How a run's events and stop requests cross process boundaries. Every run keeps its event log in
 * the memory of the process that executes it (local-runs.ts); the bus adds what other processes
 * need: following a run that lives elsewhere, and stopping it. Two implementations:
 * - memory (one machine, the embedded database): nothing crosses processes; there is only one.
 * - postgres: LISTEN/NOTIFY plus a table of event batches (postgres-run-event-bus.ts).
 * Stop also works without the bus: the heartbeat reads a stop flag on the session row.
 */
export type TRemoteFollowOptions = {
  runId: string;
  sessionId: string;
  signal?: AbortSignal;
  /** Whether the run is still going (the session row still names it and its lease holds). */
  isAlive: () => Promise<boolean>;
};

export interface TRunEventBus {
  readonly kind: "memory" | "postgres";
  /** A run started in this process: the bus may copy its events for followers elsewhere and deliver stop requests to it. */
  attach(run: TLocalRun): void;
  /** Follows a run another process executes, from its first event; undefined when this bus cannot reach it. */
  followRemote(options: TRemoteFollowOptions): AsyncIterable<TRunEvent> | undefined;
  /** Asks whichever process runs `runId` to stop it. */
  requestStop(runId: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryRunEventBus implements TRunEventBus {
  readonly kind = "memory" as const;

  attach(): void {}

  followRemote(): undefined {
    return undefined;
  }

  async requestStop(): Promise<void> {}

  async close(): Promise<void> {}
}
