import { createHash, timingSafeEqual } from "node:crypto";
import { requireAdmin } from "@/lib/auth/authenticate";
import { environment } from "@/lib/config/environment";
import { scrapeMetrics } from "./metrics";

/**
 * GET /api/metrics: the Prometheus text for `Authorization: Bearer $METRICS_TOKEN` (a scraper,
 * no account needed) or an administrator (cookie or API token); 401 without credentials, 403 for
 * someone who is not an administrator. The token is compared in constant time over its SHA-256,
 * so neither its length nor its prefix leaks through timing.
 */
export async function metricsResponse(request: Request): Promise<Response> {
  if (!carriesMetricsToken(request)) await requireAdmin(request);
  const { text, contentType } = await scrapeMetrics();
  return new Response(text, { headers: { "content-type": contentType } });
}

function carriesMetricsToken(request: Request): boolean {
  const token = environment().METRICS_TOKEN;
  if (!token) return false;
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!presented) return false;
  return timingSafeEqual(digest(presented), digest(token));
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
