import { z } from "zod";

/**
 * The events chronos hands to the jobs layer (the jobs themselves live in lib/chronos-runner, which
 * may start runs). Names and payloads are defined here so that code below the runner can send them.
 */
export const EXECUTION_EVENT = "chronos/execution.requested";
export const ZExecutionEvent = z.object({ executionId: z.uuid(), userId: z.uuid() });

/** "Run now" from the cron_manage tool: the runner creates the execution and its session. */
export const RUN_NOW_EVENT = "chronos/run-now.requested";
export const ZRunNowEvent = z.object({ jobId: z.uuid(), userId: z.uuid(), requestedBy: z.string().max(200) });

export function executionEventId(executionId: string): string {
  return `chronos-execution:${executionId}`;
}
