import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";

/**
 * Alert payloads, recognised by their shape:
 * - Prometheus Alertmanager webhook (version "4"): `{version, groupKey, status, receiver,
 *   groupLabels, commonLabels, commonAnnotations, externalURL, alerts: [{status, labels,
 *   annotations, startsAt, endsAt, generatorURL, fingerprint}]}`;
 * - Grafana alerting webhook: the same alert list plus `orgId`, `title`, `state`, `message` (and
 *   per alert `values`, `valueString`, `silenceURL`, `dashboardURL`, `panelURL`);
 * - anything else that is a JSON object: one generic alert.
 * Each becomes a normalised alert with the identity used for deduplication: fingerprint, status
 * and start time. Nothing here trusts the payload: its strings only ever reach the model as data.
 */
export type TAlertSource = "alertmanager" | "grafana" | "generic";

export type TNormalizedAlert = {
  fingerprint: string;
  status: "firing" | "resolved";
  startsAt: Date | null;
  name: string;
  severity: string | null;
  summary: string | null;
  /** The alert as received, for the triage run (size-capped). */
  payload: unknown;
};

export type TParsedAlerts = { source: TAlertSource; alerts: TNormalizedAlert[]; common?: Record<string, unknown> };

export const MAX_ALERTS_PER_DELIVERY = 1_000;
const MAX_STORED_ALERT_CHARS = 16_000;

type TRecord = Record<string, unknown>;

function isRecord(value: unknown): value is TRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown, max = 500): string | null {
  if (typeof value === "string" && value.trim()) return value.trim().slice(0, max);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    const shown = text(entry, 2_000);
    if (shown !== null) result[key] = shown;
  }
  return result;
}

/** JSON with sorted keys, so equal objects hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** RFC 3339 time, or null (also for Go's zero time, which Alertmanager sends for "no end"). */
function time(value: unknown): Date | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const date = typeof value === "number" ? new Date(value > 1e12 ? value : value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1971) return null;
  return date;
}

/** Keeps what the triage run sees (and the row stores) to a sensible size. */
function capped(value: unknown): unknown {
  const json = JSON.stringify(value);
  if (json.length <= MAX_STORED_ALERT_CHARS) return value;
  return { truncated: true, excerpt: json.slice(0, MAX_STORED_ALERT_CHARS) };
}

function fromAlertList(source: "alertmanager" | "grafana", body: TRecord): TParsedAlerts {
  const list = body.alerts as unknown[];
  if (list.length > MAX_ALERTS_PER_DELIVERY) throw new AppError("bad_request", `One delivery may carry at most ${MAX_ALERTS_PER_DELIVERY} alerts; this one has ${list.length}.`);
  const alerts = list.map((entry, index): TNormalizedAlert => {
    if (!isRecord(entry)) throw new AppError("bad_request", `alerts[${index}] is not an object.`);
    const labels = stringRecord(entry.labels);
    const annotations = stringRecord(entry.annotations);
    const fingerprint = text(entry.fingerprint, 200) ?? sha256(canonicalJson(labels)).slice(0, 16);
    return {
      fingerprint,
      status: entry.status === "resolved" ? "resolved" : "firing",
      startsAt: time(entry.startsAt),
      name: labels.alertname ?? text(body.title, 200) ?? "alert",
      severity: labels.severity ?? null,
      summary: annotations.summary ?? annotations.description ?? annotations.message ?? text(entry.valueString, 500),
      payload: capped(entry),
    };
  });
  const common: Record<string, unknown> = {};
  for (const key of ["receiver", "status", "groupLabels", "commonLabels", "commonAnnotations", "externalURL", "title", "state", "message", "truncatedAlerts"]) {
    if (body[key] !== undefined) common[key] = body[key];
  }
  return { source, alerts, common: capped(common) as Record<string, unknown> };
}

function genericAlert(body: TRecord): TParsedAlerts {
  const status = typeof body.status === "string" && /^(resolved|ok|recovered|closed)$/i.test(body.status) ? "resolved" : "firing";
  const name = text(body.alertname, 200) ?? text(body.title, 200) ?? text(body.name, 200) ?? text(body.service, 200) ?? text(body.event, 200) ?? "alert";
  return {
    source: "generic",
    alerts: [
      {
        // Without an id of its own, a generic alert is identified by its whole content: a repeated
        // delivery of the same body is a duplicate.
        fingerprint: text(body.fingerprint, 200) ?? text(body.id, 200) ?? sha256(canonicalJson(body)).slice(0, 32),
        status,
        startsAt: time(body.startsAt ?? body.startedAt ?? body.timestamp),
        name,
        severity: text(body.severity, 50) ?? text(body.level, 50) ?? text(body.priority, 50),
        summary: text(body.summary, 500) ?? text(body.message, 500) ?? text(body.error, 500) ?? text(body.description, 500),
        payload: capped(body),
      },
    ],
  };
}

export function parseAlertPayload(body: unknown): TParsedAlerts {
  if (!isRecord(body)) throw new AppError("bad_request", "The alert must be a JSON object (Alertmanager, Grafana, or your own fields).");
  if (Array.isArray(body.alerts)) {
    const grafana = "orgId" in body || (typeof body.state === "string" && "title" in body) || body.version === "1";
    if (grafana) return fromAlertList("grafana", body);
    if (body.version === "4" || typeof body.groupKey === "string" || "receiver" in body) return fromAlertList("alertmanager", body);
  }
  return genericAlert(body);
}

export function alertDedupeKey(alert: Pick<TNormalizedAlert, "fingerprint" | "status" | "startsAt">): string {
  return sha256(`${alert.fingerprint}|${alert.status}|${alert.startsAt?.toISOString() ?? ""}`);
}
