import type { TAgentOutcome } from "@/lib/agent/agent-types";
import { processSingleton } from "@/lib/process-singleton";
import type { TObservedRun } from "./run-observers";
import type { TRunEvent, TRunTrigger } from "./run-types";

/**
 * The runs this process is executing, with their event logs. A log lives only as long as its run:
 * it is dropped when the run ends (a follower still reading keeps its own reference until it has
 * replayed the end), so nothing grows with the number of past runs.
 */
export type TLocalRun = {
  id: string;
  sessionId: string;
  userId: string;
  /** What started it: a shutdown hands runs that a person waits for over to another process (drain.ts). */
  trigger: TRunTrigger;
  events: TRunEvent[];
  done: boolean;
  /** Set while the run writes its end: the heartbeat no longer counts it as running. */
  finishing: boolean;
  controller: AbortController;
  finished: Promise<TAgentOutcome>;
  /** Called on every publish: followers waiting for events, the event bus's replication. */
  readonly listeners: Set<() => void>;
  /** The run's observers (metrics, traces; run-observers.ts), given each event as it is published. */
  observe?: (event: TRunEvent) => void;
  /** What the observers know about the run; the run core fills in its tools once they are chosen. */
  observed?: TObservedRun;
};

const runsBySession = processSingleton("runs.local-runs", () => new Map<string, TLocalRun>());

export function createLocalRun(options: { id: string; sessionId: string; userId: string; trigger: TRunTrigger; controller: AbortController }): TLocalRun {
  const run: TLocalRun = { ...options, events: [], done: false, finishing: false, finished: Promise.resolve({ status: "stopped", reason: "user" }), listeners: new Set() };
  runsBySession.set(options.sessionId, run);
  return run;
}

export function localRunOf(sessionId: string): TLocalRun | undefined {
  return runsBySession.get(sessionId);
}

export function localRunById(runId: string): TLocalRun | undefined {
  for (const run of runsBySession.values()) if (run.id === runId) return run;
  return undefined;
}

export function localRunCount(): number {
  return runsBySession.size;
}

export function allLocalRuns(): TLocalRun[] {
  return [...runsBySession.values()];
}

function wake(run: TLocalRun) {
  for (const listener of [...run.listeners]) listener();
}

export function publishLocal(run: TLocalRun, event: TRunEvent): void {
  run.events.push(event);
  run.observe?.(event);
  wake(run);
}

/** Marks the run ended and forgets it; followers still holding it read to its end. */
export function endLocalRun(run: TLocalRun): void {
  run.done = true;
  wake(run);
  if (runsBySession.get(run.sessionId) === run) runsBySession.delete(run.sessionId);
}

/** Follows a local run from its first event (late listeners replay what they missed). */
export async function* followLocalRun(run: TLocalRun, signal?: AbortSignal): AsyncIterable<TRunEvent> {
  let index = 0;
  while (true) {
    while (index < run.events.length) yield run.events[index++]!;
    if (run.done || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        run.listeners.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      run.listeners.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/**
 * Hands a local run's events to `onEvents` as they are published (first those already published),
 * until the run ends or `signal` aborts, when `done` is true; returns a function that stops it.
 * The web channel streams a run this way: pushed, events published in one turn of the event loop
 * reach the browser as one write, and an open stream waits on nothing (an async iterator per layer
 * held a suspended frame and a promise per event for every open chat).
 */
export function watchLocalRun(run: TLocalRun, onEvents: (events: TRunEvent[], done: boolean) => void, signal?: AbortSignal): () => void {
  let index = 0;
  let scheduled = false;
  let stopped = false;
  const stop = () => {
    stopped = true;
    run.listeners.delete(schedule);
    signal?.removeEventListener("abort", schedule);
  };
  const drain = () => {
    scheduled = false;
    if (stopped) return;
    const events = run.events.slice(index);
    index = run.events.length;
    const done = run.done || !!signal?.aborted;
    if (done) stop();
    if (events.length || done) onEvents(events, done);
  };
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(drain);
  }
  run.listeners.add(schedule);
  signal?.addEventListener("abort", schedule, { once: true });
  schedule();
  return stop;
}

/** Waits until this process's run of the session (if any) has finished (tests, children, shutdown). */
export async function waitForRun(sessionId: string): Promise<TAgentOutcome | undefined> {
  return localRunOf(sessionId)?.finished;
}
