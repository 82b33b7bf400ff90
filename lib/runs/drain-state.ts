/**
 * Whether this process is shutting down (drain.ts). Read by every module graph of the process (the
 * run core's admission, the readiness probe), so it lives on globalThis.
 */
const state = globalThis as unknown as { xclawDraining?: { since: number } };

export function isDraining(): boolean {
  return state.xclawDraining !== undefined;
}

/** From now on new runs are refused with 503 and the readiness probe answers 503. */
export function markDraining(): void {
  state.xclawDraining ??= { since: Date.now() };
}
