import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { TNodeRoute } from "@/lib/http/server-hook";
import { currentTracing } from "./tracing";

/**
 * The channels' Node routes (a production server's POST /api/chat, answered before Next.js and so
 * outside Next.js's own request spans) with a SERVER span each, active while the route runs: the
 * run the request starts hangs under it. QQ and Feishu messages run as the `channels.message` job,
 * whose job span (job-spans.ts) plays that part. Without a tracer the route is called as it is.
 */
export function withChannelSpans(routes: Record<string, TNodeRoute>, channel: string): Record<string, TNodeRoute> {
  return Object.fromEntries(
    Object.entries(routes).map(([key, serve]) => {
      const [method = "", path = ""] = key.split(" ");
      const traced: TNodeRoute = async (incoming, outgoing) => {
        const tracing = currentTracing();
        if (!tracing) return serve(incoming, outgoing);
        const span = tracing.tracer.startSpan(key, {
          kind: SpanKind.SERVER,
          attributes: { "http.request.method": method, "http.route": path, "url.path": path, "xclaw.channel": channel },
        });
        try {
          await context.with(trace.setSpan(context.active(), span), () => serve(incoming, outgoing));
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.setAttribute("http.response.status_code", outgoing.statusCode);
          if (outgoing.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      };
      return [key, traced];
    }),
  );
}
