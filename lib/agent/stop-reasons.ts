/**
 * Why a run was stopped from outside the loop. The abort signal carries one of these as its
 * reason, the stored step error says the same words, and the UI compares against these constants
 * instead of spelling the strings again.
 */
export const STOP_REASONS = {
  user: "stopped by the user",
  timeout: "stopped at the run's time limit",
  shutdown: "stopped because the server is shutting down",
  leaseLost: "stopped because another server took this session over",
  handover: "handed over to another server process: this one is shutting down",
} as const;

export type TStopReason = keyof typeof STOP_REASONS;

export class RunStopped extends Error {
  constructor(readonly reason: TStopReason) {
    super(STOP_REASONS[reason]);
    this.name = "RunStopped";
  }
}

/**
 * Whether an abort reason is a RunStopped — also one made by another copy of this module (Next.js
 * loads instrumentation and route handlers as separate module graphs, so `instanceof` is not enough).
 */
export function isRunStopped(reason: unknown): reason is RunStopped {
  if (reason instanceof RunStopped) return true;
  const candidate = reason as { name?: unknown; reason?: unknown } | null;
  return candidate?.name === "RunStopped" && typeof candidate.reason === "string" && candidate.reason in STOP_REASONS;
}

/** The stop reason carried by an aborted signal (a plain abort counts as the user's). */
export function stopReasonOf(signal: AbortSignal): TStopReason | undefined {
  if (!signal.aborted) return undefined;
  return isRunStopped(signal.reason) ? signal.reason.reason : "user";
}
