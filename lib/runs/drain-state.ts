import { processSingleton } from "@/lib/process-singleton";

/**
 * Whether this process is shutting down (drain.ts). Read by every module graph of the process (the
 * run core's admission, the readiness probe), so it is one per process.
 */
const state = processSingleton("runs.draining", (): { since?: number } => ({}));

export function isDraining(): boolean {
  return state.since !== undefined;
}

/** From now on new runs are refused with 503 and the readiness probe answers 503. */
export function markDraining(): void {
  state.since ??= Date.now();
}
