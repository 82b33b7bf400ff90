import { receiveAlert } from "@/lib/chronos/receive-alert";
import { route } from "@/lib/http/route";

/**
 * Alerts from monitoring (Prometheus Alertmanager, Grafana, any JSON), authenticated with an
 * endpoint secret (Bearer, or an HMAC signature with a timestamp) → `{ok, accepted, deduped}`.
 * Triage runs in the background (lib/chronos/receive-alert.ts).
 */
export const POST = route(async (request) => {
  const { ok, accepted, deduped, triage } = await receiveAlert(request);
  return Response.json({ ok, accepted, deduped, triage });
});
