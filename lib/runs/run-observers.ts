import { processSingleton } from "@/lib/process-singleton";
import type { TRunEvent, TRunInput, TRunTrigger } from "./run-types";

/**
 * Observers of every run this process executes (metrics and traces, lib/telemetry), installed
 * by the composition root (lib/app). An observer sees a run's start, each of its events as they
 * are published to its log (local-runs.ts) and its end, and the runs refused before they started.
 * With none installed a run pays one check of an unset field per event.
 *
 * An observer must be cheap and must not throw: its errors are swallowed, never the run's.
 */
export type TObservedRun = {
  runId: string;
  sessionId: string;
  trigger: TRunTrigger;
  /** 0 for a top-level run; a sub-agent's run is 1 or more. */
  depth: number;
  inputKind: TRunInput["kind"];
  /** The session's run profile (a worker's agent, a team), as stored; unknown to the run core. */
  runProfile: unknown;
  /** The tool call whose step started this run (a sub-agent's delegating call, a worker's delegate). */
  callerStepId?: string;
  /** The names of the tools this run was given, once they are known (before the first model call). */
  toolNames?: ReadonlySet<string>;
};

/** draining: the process is restarting; process_limit: runs.maxConcurrent; user_limit: runs.maxConcurrentPerUser. */
export type TRunRefusal = "draining" | "process_limit" | "user_limit";

export type TRunObserver = {
  /** Called when a run starts (after its claim); returns what receives its events, or nothing. */
  runStarted(run: TObservedRun): ((event: TRunEvent) => void) | undefined;
  /** A run refused before anything was written (admission control). */
  runRefused?(reason: TRunRefusal): void;
};

const installed = processSingleton("runs.observers", () => ({ observers: [] as TRunObserver[] }));

/** Replaces the observers (installApp, tests); an empty list turns observation off. */
export function installRunObservers(observers: readonly TRunObserver[]): void {
  installed.observers = [...observers];
}

/** The run's observers as one callback, or undefined when no observer wants it. */
export function observeRun(run: TObservedRun): ((event: TRunEvent) => void) | undefined {
  if (!installed.observers.length) return undefined;
  const receivers: ((event: TRunEvent) => void)[] = [];
  for (const observer of installed.observers) {
    try {
      const receiver = observer.runStarted(run);
      if (receiver) receivers.push(receiver);
    } catch {
      // An observer's failure is its own.
    }
  }
  if (!receivers.length) return undefined;
  return (event) => {
    for (const receiver of receivers) {
      try {
        receiver(event);
      } catch {
        // Same as above: metrics or traces never end a run.
      }
    }
  };
}

export function noteRunRefused(reason: TRunRefusal): void {
  for (const observer of installed.observers) {
    try {
      observer.runRefused?.(reason);
    } catch {
      // Ignored, as above.
    }
  }
}
