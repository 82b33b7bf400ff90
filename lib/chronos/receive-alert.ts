import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { storableJson } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import { isJsonMediaType, readBodyText } from "@/lib/http/request-body";
import { sendEvent } from "@/lib/jobs/send-event";
import { assertNotRateLimited, recordFailure } from "@/lib/auth/rate-limit";
import { createLogger } from "@/lib/observability/logger";
import { identifyAlertCaller, verifyAlertSignature } from "./alert-auth";
import { alertDedupeKey, parseAlertPayload } from "./alert-payloads";
import { EXECUTION_EVENT, executionEventId } from "./events";
import { beginTriageExecution, finishExecution } from "./executions";

/**
 * POST /api/webhook/alert: authenticate, read (at most chronos.webhook.maxBodyBytes), recognise
 * the payload, record each alert once (a repeated delivery of the same fingerprint, status and
 * start time is counted as deduplicated), and queue one triage run for the new firing alerts.
 * Resolved alerts are recorded, not triaged. Nothing waits for the model: the answer comes as soon
 * as the rows are written and the job is queued.
 */
const log = createLogger("webhook");

export type TAlertReceipt = { ok: true; accepted: number; deduped: number; triage: string | null };

export async function receiveAlert(request: Request): Promise<TAlertReceipt> {
  const settings = getBehaviourConfig().chronos.webhook;
  const caller = await identifyAlertCaller(request);
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw new AppError("unsupported_media_type", "Send the alert as JSON with `Content-Type: application/json`.");
  }
  const body = await readBodyText(request, settings.maxBodyBytes);
  verifyAlertSignature(caller, request, body, { toleranceSeconds: settings.timestampToleranceSeconds });
  const { endpoint } = caller;
  if (!endpoint.enabled) throw new AppError("forbidden", `The webhook endpoint "${endpoint.name}" is switched off; switch it on in Settings → Webhooks.`);
  const limitKey = `webhook:endpoint:${endpoint.id}`;
  const rule = { maxFailures: settings.requestsPerMinute, windowSeconds: 60 };
  await assertNotRateLimited(limitKey, rule, `alerts on this endpoint (more than ${settings.requestsPerMinute} a minute)`);
  await recordFailure(limitKey, rule);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.");
  }
  const parsed = parseAlertPayload(storableJson(json));
  const rows = parsed.alerts.map((alert) => ({
    userId: endpoint.userId,
    endpointId: endpoint.id,
    source: parsed.source,
    dedupeKey: alertDedupeKey(alert),
    fingerprint: alert.fingerprint,
    status: alert.status,
    startsAt: alert.startsAt,
    name: alert.name,
    severity: alert.severity,
    summary: alert.summary,
    payload: storableJson({ alert: alert.payload, ...(parsed.common ? { delivery: parsed.common } : {}) }) as object,
  }));
  // One delivery may repeat an alert; the unique key keeps the first.
  const inserted = await db().webhookAlert.createManyAndReturn({ data: rows, skipDuplicates: true, select: { id: true, status: true } });
  await db().webhookEndpoint.update({ where: { id: endpoint.id }, data: { lastUsedAt: new Date() } });
  const firing = inserted.filter((row) => row.status === "firing");
  let triage: string | null = null;
  if (firing.length) {
    const execution = await beginTriageExecution({ userId: endpoint.userId, endpointId: endpoint.id });
    await db().webhookAlert.updateMany({ where: { id: { in: firing.map((row) => row.id) } }, data: { executionId: execution.id } });
    try {
      await sendEvent({ name: EXECUTION_EVENT, data: { executionId: execution.id, userId: endpoint.userId }, id: executionEventId(execution.id) });
    } catch (error) {
      await finishExecution({ executionId: execution.id, status: "FAILED", reason: "The triage could not be queued." });
      throw error;
    }
    triage = execution.id;
  }
  log.info("alert received", { endpointId: endpoint.id, source: parsed.source, alerts: rows.length, accepted: inserted.length, triage: triage !== null });
  return { ok: true, accepted: inserted.length, deduped: rows.length - inserted.length, triage };
}
