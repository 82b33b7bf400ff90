import { z } from "zod";

/**
 * The events chronos hands to the jobs layer (the jobs themselves are in chronos-jobs.ts). Names
 * and payloads live apart from the jobs so that the tools and stores can send them without
 * importing the job handlers.
 */
export const EXECUTION_EVENT = "chronos/execution.requested";
export const ZExecutionEvent = z.object({ executionId: z.uuid(), userId: z.uuid() });

/** "Run now" from the cron_manage tool: the runner creates the execution and its session. */
export const RUN_NOW_EVENT = "chronos/run-now.requested";
export const ZRunNowEvent = z.object({ jobId: z.uuid(), userId: z.uuid(), requestedBy: z.string().max(200) });

export function executionEventId(executionId: string): string {
  return `chronos-execution:${executionId}`;
}
