import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { TAnyJobDefinition } from "@/lib/jobs/define-job";
import { currentTracing } from "./tracing";

/**
 * Each job of the catalog with a span around its handler (`job {id}`, CONSUMER), active while the
 * handler runs: a run the job starts (a scheduled job's, a channel message's, a worker's) hangs
 * under it. Without a tracer the handler is called as it is. The composition root wraps the
 * catalog it hands to the engine (lib/app), so the jobs engine knows nothing of traces.
 */
export function withJobSpans(jobs: readonly TAnyJobDefinition[]): TAnyJobDefinition[] {
  return jobs.map((job) => ({
    ...job,
    handler: async (jobContext) => {
      const tracing = currentTracing();
      if (!tracing) return job.handler(jobContext);
      const span = tracing.tracer.startSpan(`job ${job.id}`, {
        kind: SpanKind.CONSUMER,
        attributes: { "xclaw.job.id": job.id, "xclaw.job.run_id": jobContext.runId, "xclaw.job.attempt": jobContext.attempt, "xclaw.job.event": jobContext.event.name },
      });
      try {
        return await context.with(trace.setSpan(context.active(), span), () => job.handler(jobContext));
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute("error.type", error instanceof Error ? error.name : "error");
        throw error;
      } finally {
        span.end();
      }
    },
  }));
}
