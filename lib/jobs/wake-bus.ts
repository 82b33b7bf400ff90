import { EventEmitter } from "node:events";
import { processSingleton } from "@/lib/process-singleton";

/**
 * How a runner hears about new work without waiting for its next poll.
 *
 * - In the same process: this bus. It is a processSingleton because Next.js loads instrumentation
 *   and route handlers as separate module graphs, so a module-level emitter would be two emitters.
 * - In other processes (PostgreSQL only): NOTIFY on JOBS_CHANNEL, which every runner LISTENs to on
 *   a connection of its own. PGlite has one session for all connections, so a notification cannot
 *   be routed to a listener there; it serves one process anyway, which the bus covers.
 *
 * Messages: "work" (something became due) and "cancel" (a run's cancelRequested was set).
 */
export const JOBS_CHANNEL = "xclaw_jobs";

export function jobsBus(): EventEmitter {
  return processSingleton("jobs.wake-bus", () => {
    const bus = new EventEmitter();
    // Every runner in the process listens (tests start several); none of them leaks.
    bus.setMaxListeners(0);
    return bus;
  });
}

export function announceWork(): void {
  jobsBus().emit("work");
}

export function announceCancel(runId: string): void {
  jobsBus().emit("cancel", runId);
}
