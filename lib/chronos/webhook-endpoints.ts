import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { openSecret, sealSecret, type TSealedColumn } from "@/lib/config/secret-box";
import { db } from "@/lib/db/client";
import type { WebhookEndpoint } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import { assertOwnChannels } from "@/lib/notifications/channels";
import type { TWebhookEndpointView } from "@/lib/wire/chronos";
import { enabledChannelIds } from "./jobs-store";

/**
 * Monitoring endpoints: where Prometheus Alertmanager, Grafana or any system posts alerts for one
 * user. Each has its own secret (`xwh_` + 256 random bits), shown once at creation or rotation.
 * Bearer authentication finds the endpoint by the secret's SHA-256; HMAC verification needs the
 * secret itself, so it is also kept sealed (lib/config/secret-box.ts).
 */
export const ENDPOINT_SECRET_PREFIX = "xwh_";
const SEAL_PURPOSE = "webhook-endpoint";

/** For the rotation of NEXTAUTH_SECRET (lib/app/sealed-columns.ts). */
export const WEBHOOK_ENDPOINTS_COLUMN: TSealedColumn = { table: "webhook_endpoints", column: "secretSealed", purpose: SEAL_PURPOSE };

const ZName = z.string().trim().min(1, "Give the endpoint a name.").max(100, "Endpoint names are at most 100 characters.");
const ZInstructions = z.string().trim().max(4_000, "Triage instructions are at most 4000 characters.");
const ZChannels = z.array(z.string().max(100)).max(50, "At most 50 channels.");

export const ZCreateEndpoint = z.strictObject({ name: ZName, instructions: ZInstructions.optional(), channels: ZChannels.optional() });
export const ZUpdateEndpoint = z.strictObject({ name: ZName.optional(), instructions: ZInstructions.optional(), channels: ZChannels.optional(), enabled: z.boolean().optional() });

export function hashEndpointSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function endpointUrl(origin: string, endpointId: string): string {
  return `${origin.replace(/\/+$/, "")}/api/webhook/alert?endpoint=${endpointId}`;
}

export function toEndpointView(row: WebhookEndpoint, origin: string): TWebhookEndpointView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    url: endpointUrl(origin, row.id),
    instructions: row.instructions,
    channels: row.channelIds,
    enabled: row.enabled,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

function newSecret(): { secret: string; secretHash: string; secretSealed: string; prefix: string } {
  const secret = ENDPOINT_SECRET_PREFIX + randomBytes(32).toString("base64url");
  return { secret, secretHash: hashEndpointSecret(secret), secretSealed: sealSecret(secret, SEAL_PURPOSE), prefix: secret.slice(0, 10) };
}

export function endpointSecret(row: WebhookEndpoint): string {
  return openSecret(row.secretSealed, SEAL_PURPOSE);
}

export async function listEndpoints(options: { userId: string }): Promise<WebhookEndpoint[]> {
  return db().webhookEndpoint.findMany({ where: { userId: options.userId }, orderBy: { createdAt: "asc" } });
}

export async function getEndpointOrThrow(options: { userId: string; endpointId: string }): Promise<WebhookEndpoint> {
  const id = z.uuid().safeParse(options.endpointId);
  const endpoint = id.success ? await db().webhookEndpoint.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!endpoint) throw new AppError("not_found", "No such webhook endpoint.");
  return endpoint;
}

export async function createEndpoint(options: { userId: string; input: z.infer<typeof ZCreateEndpoint> }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { userId, input } = options;
  const { maxEndpointsPerUser } = getBehaviourConfig().chronos.webhook;
  if ((await db().webhookEndpoint.count({ where: { userId } })) >= maxEndpointsPerUser) {
    throw new AppError("conflict", `You already have ${maxEndpointsPerUser} webhook endpoints (chronos.webhook.maxEndpointsPerUser). Delete one first.`);
  }
  const channelIds = input.channels ? await assertOwnChannels(userId, input.channels) : await enabledChannelIds(userId);
  const { secret, ...stored } = newSecret();
  const endpoint = await db().webhookEndpoint.create({
    data: { userId, name: storableText(input.name), instructions: storableText(input.instructions ?? ""), channelIds, ...stored },
  });
  return { endpoint, secret };
}

export async function updateEndpoint(options: { userId: string; endpointId: string; input: z.infer<typeof ZUpdateEndpoint> }): Promise<WebhookEndpoint> {
  const endpoint = await getEndpointOrThrow(options);
  const { input } = options;
  const channelIds = input.channels ? await assertOwnChannels(options.userId, input.channels) : undefined;
  return db().webhookEndpoint.update({
    where: { id: endpoint.id },
    data: {
      name: input.name === undefined ? undefined : storableText(input.name),
      instructions: input.instructions === undefined ? undefined : storableText(input.instructions),
      channelIds,
      enabled: input.enabled,
    },
  });
}

/** A new secret; the old one stops working at once. */
export async function rotateEndpointSecret(options: { userId: string; endpointId: string }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const existing = await getEndpointOrThrow(options);
  const { secret, ...stored } = newSecret();
  const endpoint = await db().webhookEndpoint.update({ where: { id: existing.id }, data: stored });
  return { endpoint, secret };
}

export async function deleteEndpoint(options: { userId: string; endpointId: string }): Promise<void> {
  const endpoint = await getEndpointOrThrow(options);
  await db().webhookEndpoint.deleteMany({ where: { id: endpoint.id, userId: options.userId } });
}
