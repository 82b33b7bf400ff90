/**
 * Why an execution of a job run stops before its handler returns (job-execution.ts): a sleep or an
 * invoke parks it, a step failure retries it, a cancel or shutdown ends or releases it, a lost
 * lease abandons it. The interrupted step's promise never settles, so the handler cannot go on.
 */
export type TInterrupt =
  | { kind: "park"; wakeAt: Date }
  | { kind: "retry"; error: string; delayMs?: number }
  | { kind: "cancelled"; reason: string }
  | { kind: "release" }
  | { kind: "lease-lost" };

// Lower wins when several interrupts arrive (parallel steps): a cancel beats a retry beats a park.
export const INTERRUPT_PRIORITY: Record<TInterrupt["kind"], number> = { "lease-lost": 0, cancelled: 1, release: 2, retry: 3, park: 4 };

/**
 * A promise that never settles, for steps that interrupted the execution. A fresh one each time:
 * reactions attached to a shared never-settling promise would be kept alive forever, and with
 * them every parked handler's closure.
 */
export function never(): Promise<never> {
  return new Promise<never>(() => {});
}

/** What a step's work returns when the step cannot go on in this execution. */
export const STOP = Symbol("stop");
