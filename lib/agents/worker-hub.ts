import { EventEmitter } from "node:events";
import { processSingleton } from "@/lib/process-singleton";

/**
 * In-process news about workers, for a parent waiting in the same process as its workers' jobs
 * (the embedded runner, the usual case): what a worker is writing right now (streamed to the
 * parent's card), a wake-up when its task row changes, and how to stop it at once. Across processes
 * the parent reads the task rows instead (liveText, status), a little later. One per process
 * (processSingleton): Next.js loads instrumentation (the job runner) and route handlers as separate
 * module graphs.
 */
type THub = { events: EventEmitter; live: Map<string, string>; stops: Map<string, () => void> };

function hub(): THub {
  return processSingleton("agents.worker-hub", () => {
    const value: THub = { events: new EventEmitter(), live: new Map(), stops: new Map() };
    value.events.setMaxListeners(0);
    return value;
  });
}

const LIVE_CHARACTERS = 600;

/** The worker's latest text (or activity); keeps the tail only. */
export function publishLive(taskId: string, text: string): void {
  hub().live.set(taskId, text.length > LIVE_CHARACTERS ? `…${text.slice(-LIVE_CHARACTERS)}` : text);
  hub().events.emit("change", taskId);
}

export function liveTextOf(taskId: string): string | undefined {
  return hub().live.get(taskId);
}

/** Something about the task changed (status, result): wake whoever waits for it. */
export function announceTask(taskId: string): void {
  hub().events.emit("change", taskId);
}

export function forgetLive(taskId: string): void {
  hub().live.delete(taskId);
}

/** Resolves on the next change of one of these tasks, or after `ms`. */
export function waitForChange(taskIds: readonly string[], ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wanted = new Set(taskIds);
    const events = hub().events;
    const done = () => {
      clearTimeout(timer);
      events.off("change", onChange);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const onChange = (taskId: string) => {
      if (wanted.has(taskId)) done();
    };
    const timer = setTimeout(done, ms);
    events.on("change", onChange);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A worker running here registers how to stop it; the parent's Stop uses it before the database flag. */
export function registerStop(taskId: string, stop: () => void): () => void {
  hub().stops.set(taskId, stop);
  return () => {
    if (hub().stops.get(taskId) === stop) hub().stops.delete(taskId);
  };
}

export function stopLocally(taskId: string): boolean {
  const stop = hub().stops.get(taskId);
  stop?.();
  return stop !== undefined;
}
