import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { openSecret, sealSecret, SecretBoxError, type TSealedColumn } from "@/lib/config/secret-box";
import { db } from "@/lib/db/client";
import type { NotificationChannel, NotificationChannelKind, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { assertPublicUrl } from "@/lib/net/assert-public-url";
import type { TNotificationChannelKind, TNotificationChannelView } from "@/lib/wire/chronos";

/**
 * A user's notification channels besides the in-app bell: a Feishu custom bot (its webhook URL and,
 * when the bot has "signature verification" on, its secret), a generic webhook (JSON signed with
 * HMAC-SHA256) or the server log. URLs carry tokens, so they are sealed at rest and the list shows
 * only the origin and a hint. Every URL must be public (checked here and again on every send).
 */
const SEAL_PURPOSE = "notification-channel";

/** For the rotation of NEXTAUTH_SECRET (lib/app/sealed-columns.ts). */
export const NOTIFICATION_CHANNELS_COLUMN: TSealedColumn = { table: "notification_channels", column: "configSealed", purpose: SEAL_PURPOSE };

export type TChannelConfig = { url?: string; secret?: string };
export type TOpenedChannel = { id: string; userId: string; name: string; kind: TNotificationChannelKind; config: TChannelConfig };

const ZName = z.string().trim().min(1, "Give the channel a name.").max(100, "Channel names are at most 100 characters.");
const ZUrl = z.string().trim().min(1, "Enter the webhook URL.").max(2_000, "The URL is longer than 2000 characters.");
const ZSecret = z.string().trim().min(1).max(500, "The secret is longer than 500 characters.");

export const ZCreateChannel = z.strictObject({
  name: ZName,
  kind: z.enum(["feishu", "webhook", "log"], { error: "kind must be feishu, webhook or log." }),
  url: ZUrl.optional(),
  secret: ZSecret.optional(),
  enabled: z.boolean().optional(),
});

export const ZUpdateChannel = z.strictObject({
  name: ZName.optional(),
  url: ZUrl.optional(),
  /** A new signing secret; null removes it (Feishu bots without signature verification). */
  secret: ZSecret.nullable().optional(),
  enabled: z.boolean().optional(),
});

const KIND_TO_DB: Record<TNotificationChannelKind, NotificationChannelKind> = { feishu: "FEISHU", webhook: "WEBHOOK", log: "LOG" };

export function channelKindName(kind: NotificationChannelKind): TNotificationChannelKind {
  return kind.toLowerCase() as TNotificationChannelKind;
}

/** "https://open.feishu.cn/…/3f2a": enough to tell channels apart, without the token. */
export function describeTarget(kind: TNotificationChannelKind, url: string | undefined): string {
  if (kind === "log") return "the server log";
  if (!url) return "";
  try {
    const parsed = new URL(url);
    const tail = parsed.pathname.replace(/\/+$/, "").slice(-4);
    return `${parsed.origin}/…${tail ? tail : ""}`;
  } catch {
    return "";
  }
}

export function toChannelView(channel: NotificationChannel): TNotificationChannelView {
  return {
    id: channel.id,
    name: channel.name,
    kind: channelKindName(channel.kind),
    target: channel.target,
    enabled: channel.enabled,
    lastError: channel.lastError,
    lastErrorAt: channel.lastErrorAt?.toISOString() ?? null,
    lastSuccessAt: channel.lastSuccessAt?.toISOString() ?? null,
    createdAt: channel.createdAt.toISOString(),
  };
}

export function openChannel(channel: NotificationChannel): TOpenedChannel {
  let config: TChannelConfig;
  try {
    config = JSON.parse(openSecret(channel.configSealed, SEAL_PURPOSE)) as TChannelConfig;
  } catch (error) {
    if (error instanceof SecretBoxError) throw new AppError("conflict", `The channel "${channel.name}" cannot be used: ${error.message}`);
    throw error;
  }
  return { id: channel.id, userId: channel.userId, name: channel.name, kind: channelKindName(channel.kind), config };
}

/** The SSRF check on save, with the administrator's allow-list; sends are checked again. */
async function checkedUrl(url: string): Promise<string> {
  return (await assertPublicUrl(url, { allowedPrivateHosts: getBehaviourConfig().chronos.notifications.allowedPrivateHosts })).href;
}

function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}

export async function listChannels(options: { userId: string }): Promise<TNotificationChannelView[]> {
  const rows = await db().notificationChannel.findMany({ where: { userId: options.userId }, orderBy: { createdAt: "asc" } });
  return rows.map(toChannelView);
}

export async function getChannelOrThrow(options: { userId: string; channelId: string }): Promise<NotificationChannel> {
  const id = z.uuid().safeParse(options.channelId);
  const channel = id.success ? await db().notificationChannel.findFirst({ where: { id: id.data, userId: options.userId } }) : null;
  if (!channel) throw new AppError("not_found", "No such notification channel.");
  return channel;
}

/**
 * Creates a channel. A generic webhook gets a signing secret (generated unless given), returned
 * once so the receiver can verify signatures; it is never shown again.
 */
export async function createChannel(options: { userId: string; input: z.infer<typeof ZCreateChannel> }): Promise<{ channel: TNotificationChannelView; secret?: string }> {
  const { input, userId } = options;
  const { maxChannelsPerUser } = getBehaviourConfig().chronos.notifications;
  if ((await db().notificationChannel.count({ where: { userId } })) >= maxChannelsPerUser) {
    throw new AppError("conflict", `You already have ${maxChannelsPerUser} notification channels (chronos.notifications.maxChannelsPerUser). Delete one first.`);
  }
  const config: TChannelConfig = {};
  let shownSecret: string | undefined;
  if (input.kind === "log") {
    if (input.url || input.secret) throw new AppError("bad_request", "A log channel takes no URL or secret.");
  } else {
    if (!input.url) throw new AppError("bad_request", input.kind === "feishu" ? "Enter the Feishu bot's webhook URL." : "Enter the webhook URL.");
    config.url = await checkedUrl(input.url);
    if (input.kind === "webhook") config.secret = shownSecret = input.secret ?? newWebhookSecret();
    else if (input.secret) config.secret = input.secret;
  }
  const row = await db().notificationChannel.create({
    data: {
      userId,
      name: input.name,
      kind: KIND_TO_DB[input.kind],
      configSealed: sealSecret(JSON.stringify(config), SEAL_PURPOSE),
      target: describeTarget(input.kind, config.url),
      enabled: input.enabled ?? true,
    },
  });
  return { channel: toChannelView(row), secret: input.kind === "webhook" && !input.secret ? shownSecret : undefined };
}

export async function updateChannel(options: { userId: string; channelId: string; input: z.infer<typeof ZUpdateChannel> }): Promise<TNotificationChannelView> {
  const channel = await getChannelOrThrow(options);
  const { input } = options;
  const kind = channelKindName(channel.kind);
  const data: Prisma.NotificationChannelUpdateInput = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.enabled !== undefined) data.enabled = input.enabled;
  if (input.url !== undefined || input.secret !== undefined) {
    if (kind === "log") throw new AppError("bad_request", "A log channel takes no URL or secret.");
    const config = openChannel(channel).config;
    if (input.url !== undefined) config.url = await checkedUrl(input.url);
    if (input.secret === null) {
      if (kind === "webhook") throw new AppError("bad_request", "A webhook channel always signs its requests; give a new secret instead of removing it.");
      delete config.secret;
    } else if (input.secret !== undefined) config.secret = input.secret;
    data.configSealed = sealSecret(JSON.stringify(config), SEAL_PURPOSE);
    data.target = describeTarget(kind, config.url);
    // A new address or secret deserves a fresh start: the old error was about the old one.
    data.lastError = null;
    data.lastErrorAt = null;
  }
  const updated = await db().notificationChannel.update({ where: { id: channel.id }, data });
  return toChannelView(updated);
}

export async function deleteChannel(options: { userId: string; channelId: string }): Promise<void> {
  const channel = await getChannelOrThrow(options);
  await db().notificationChannel.delete({ where: { id: channel.id } });
}

/** Keeps only ids of this user's channels (a list from a job or an endpoint may be out of date). */
export async function ownChannelIds(userId: string, ids: readonly string[]): Promise<string[]> {
  const valid = ids.filter((id) => z.uuid().safeParse(id).success);
  if (!valid.length) return [];
  const rows = await db().notificationChannel.findMany({ where: { userId, id: { in: valid } }, select: { id: true } });
  const own = new Set(rows.map((row) => row.id));
  return valid.filter((id) => own.has(id));
}

/** Refuses channel ids the user does not have, with a message that says which. */
export async function assertOwnChannels(userId: string, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const own = await ownChannelIds(userId, unique);
  const missing = unique.filter((id) => !own.includes(id));
  if (missing.length) throw new AppError("bad_request", `No such notification channel: ${missing[0]}. Create it in Settings → Notifications first.`);
  return unique;
}
