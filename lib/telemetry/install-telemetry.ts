import { installRunObservers, type TRunObserver } from "@/lib/runs/run-observers";
import { runMetricsObserver } from "./run-metrics";
import { runSpanObserver } from "./run-spans";
import { currentTracing, tracingFromEnvironment, type TTracing } from "./tracing";

/**
 * Metrics and traces on the run core, installed by the composition root (installApp): the metrics
 * observer always (GET /api/metrics reads it), the span observer only when a tracer exists
 * (OTEL_EXPORTER_OTLP_ENDPOINT, or the one a test gives). Calling it again replaces both; the
 * tracer from the environment is made once per process.
 */
export function installTelemetry(options: { tracing?: TTracing } = {}): void {
  const tracing = options.tracing ?? currentTracing() ?? tracingFromEnvironment();
  const observers: TRunObserver[] = [runMetricsObserver()];
  if (tracing) observers.push(runSpanObserver(tracing));
  installRunObservers(observers);
}
