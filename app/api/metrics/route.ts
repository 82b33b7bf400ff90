import { route } from "@/lib/http/route";
import { metricsResponse } from "@/lib/telemetry/metrics-endpoint";

/** Prometheus metrics for `Authorization: Bearer $METRICS_TOKEN` or an administrator. */
export const GET = route(async (request) => metricsResponse(request));
