import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { db } from "@/lib/db/client";
import type { WebhookEndpoint } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { endpointSecret, ENDPOINT_SECRET_PREFIX, hashEndpointSecret } from "./webhook-endpoints";

/**
 * Who is posting an alert. There is no unauthenticated mode; either
 * - `Authorization: Bearer <endpoint secret>`: the endpoint is found by the secret's SHA-256 and
 *   the hashes are compared again in constant time; or
 * - an HMAC signature with a timestamp, Grafana's scheme: `?endpoint=<id>` in the URL, the Unix
 *   time in `X-Xclaw-Timestamp` (or `X-Grafana-Alerting-Timestamp`), and hex HMAC-SHA256 of
 *   `timestamp + ":" + body` keyed with the endpoint secret in `X-Xclaw-Signature` (or Grafana's
 *   `X-Grafana-Alerting-Signature`; a `sha256=` prefix is accepted). The timestamp must be within
 *   `timestampToleranceSeconds` of the server's clock, so a captured request cannot be replayed later.
 * Every refusal is the same 401 for the caller, with the reason in words.
 */
export type TAlertCaller = { endpoint: WebhookEndpoint; mode: "bearer" | "hmac" };

const SIGNATURE_HEADERS = ["x-xclaw-signature", "x-grafana-alerting-signature"];
const TIMESTAMP_HEADERS = ["x-xclaw-timestamp", "x-grafana-alerting-timestamp"];

function unauthorized(message: string): AppError {
  return new AppError("unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="xclaw webhook"' } });
}

function firstHeader(request: Request, names: string[]): string | null {
  for (const name of names) {
    const value = request.headers.get(name);
    if (value) return value.trim();
  }
  return null;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Step one, before the body is read: find the endpoint from the bearer secret or the URL. */
export async function identifyAlertCaller(request: Request): Promise<TAlertCaller> {
  const requested = new URL(request.url).searchParams.get("endpoint");
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!match || !match[1]!.startsWith(ENDPOINT_SECRET_PREFIX)) throw unauthorized("The bearer token is not a webhook endpoint secret (xwh_…). Create an endpoint in Settings → Webhooks.");
    const presented = hashEndpointSecret(match[1]!);
    const endpoint = await db().webhookEndpoint.findUnique({ where: { secretHash: presented } });
    if (!endpoint || !sameBytes(Buffer.from(endpoint.secretHash, "hex"), Buffer.from(presented, "hex"))) {
      throw unauthorized("Unknown or rotated webhook secret.");
    }
    if (requested && requested !== endpoint.id) throw unauthorized("The secret does not belong to the endpoint named in the URL.");
    return { endpoint, mode: "bearer" };
  }
  if (firstHeader(request, SIGNATURE_HEADERS)) {
    const id = z.uuid().safeParse(requested);
    const endpoint = id.success ? await db().webhookEndpoint.findUnique({ where: { id: id.data } }) : null;
    if (!endpoint) throw unauthorized("A signed request needs ?endpoint=<id> of an existing endpoint in the URL.");
    return { endpoint, mode: "hmac" };
  }
  throw unauthorized("Authenticate with `Authorization: Bearer <endpoint secret>` or an HMAC signature (X-Xclaw-Signature and X-Xclaw-Timestamp).");
}

export function alertSignature(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}:${body}`).digest("hex");
}

/** Step two for signed requests, once the body is read. */
export function verifyAlertSignature(caller: TAlertCaller, request: Request, body: string, options: { toleranceSeconds: number; now?: Date }): void {
  if (caller.mode !== "hmac") return;
  const timestamp = firstHeader(request, TIMESTAMP_HEADERS);
  if (!timestamp || !/^\d{9,11}$/.test(timestamp)) throw unauthorized("A signed request needs X-Xclaw-Timestamp: the Unix time in seconds.");
  const skew = Math.abs((options.now ?? new Date()).getTime() / 1000 - Number(timestamp));
  if (skew > options.toleranceSeconds) throw unauthorized(`The timestamp is ${Math.round(skew)} s away from the server's clock; at most ${options.toleranceSeconds} s are accepted.`);
  const presented = (firstHeader(request, SIGNATURE_HEADERS) ?? "").replace(/^sha256=/i, "").toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(presented)) throw unauthorized("The signature must be 64 hex digits (HMAC-SHA256).");
  let secret: string;
  try {
    secret = endpointSecret(caller.endpoint);
  } catch {
    throw unauthorized("This endpoint's secret can no longer be read on the server; rotate it in Settings → Webhooks.");
  }
  const expected = alertSignature(secret, timestamp, body);
  if (!sameBytes(Buffer.from(expected, "hex"), Buffer.from(presented, "hex"))) throw unauthorized("The signature does not match the body and timestamp.");
}
