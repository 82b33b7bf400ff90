import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { environment } from "@/lib/config/environment";
import { processSingleton } from "@/lib/process-singleton";

/**
 * The process's tracer, when traces are on: an OpenTelemetry SDK tracer provider whose spans go
 * to OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT) or, in tests, to the processors given. With no
 * endpoint nothing here is created and no span is ever started (the run observers are not even
 * installed, lib/telemetry/install-telemetry.ts), so traces off cost nothing.
 *
 * The provider is registered once per process as the global one, which also installs the
 * AsyncLocalStorage context manager: a job's span is then the active span while its handler runs,
 * and a run started inside it hangs under it (run-spans.ts reads the active context at the start).
 */
export type TTracing = {
  tracer: Tracer;
  /** Message content (text, tool arguments and results) in spans: an administrator's choice, off by default. */
  captureContent: boolean;
  provider: NodeTracerProvider;
};

const state = processSingleton("telemetry.tracing", () => ({ current: undefined as TTracing | undefined, registered: false }));

export function currentTracing(): TTracing | undefined {
  return state.current;
}

/** Starts tracing with these span processors (replacing a previous tracer of this process). */
export function startTracing(options: { spanProcessors: SpanProcessor[]; serviceName: string; serviceVersion?: string; captureContent: boolean }): TTracing {
  const resource = resourceFromAttributes({ "service.name": options.serviceName, ...(options.serviceVersion ? { "service.version": options.serviceVersion } : {}) });
  const provider = new NodeTracerProvider({ resource, spanProcessors: options.spanProcessors });
  if (!state.registered) {
    // The global provider (Next.js's own spans use it) and the context manager; once per process.
    provider.register({ propagator: null });
    state.registered = true;
  }
  const previous = state.current;
  state.current = { tracer: provider.getTracer("xclaw"), captureContent: options.captureContent, provider };
  if (previous) void previous.provider.shutdown().catch(() => undefined);
  return state.current;
}

/** The endpoint's traces URL, as the OTLP specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT. */
export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/** Traces as the environment asks: OTLP over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none. */
export function tracingFromEnvironment(): TTracing | undefined {
  const variables = environment();
  const endpoint = variables.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const exporter = new OTLPTraceExporter({ url: otlpTracesUrl(endpoint) });
  return startTracing({
    spanProcessors: [new BatchSpanProcessor(exporter)],
    serviceName: variables.OTEL_SERVICE_NAME,
    serviceVersion: variables.XCLAW_VERSION ?? variables.npm_package_version,
    captureContent: variables.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
  });
}

/** Sends the spans still buffered and stops the tracer (shutdown, tests). */
export async function stopTracing(): Promise<void> {
  const current = state.current;
  state.current = undefined;
  await current?.provider.shutdown();
}
