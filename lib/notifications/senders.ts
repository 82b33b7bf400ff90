import { createHmac } from "node:crypto";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { publicOrigin } from "@/lib/config/environment";
import { AppError } from "@/lib/errors";
import { guardedFetch } from "@/lib/net/guarded-fetch";
import { createLogger } from "@/lib/observability/logger";
import type { TNotificationLevel, TNotificationView } from "@/lib/wire/chronos";
import type { TOpenedChannel } from "./channels";

/**
 * Sending one notification to one channel. Feishu and generic webhooks go through guardedFetch
 * (public addresses only, DNS pinned, redirects re-checked, time and size capped). A failure is a
 * DeliveryError that says whether trying again can help (network trouble, 5xx, 429, Feishu's
 * rate limit) or not (a wrong URL or secret, a refused address): the jobs layer retries the former.
 */
const log = createLogger("notifications");

/** The notification the bell shows, as it goes out: unread, with its own date. */
export type TOutgoingNotification = Omit<TNotificationView, "readAt" | "createdAt"> & { createdAt: Date };

export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/**
 * Feishu custom bot signing ("signature verification" in the bot's security settings), as the
 * Feishu open platform's custom bot guide specifies (open.feishu.cn, "自定义机器人使用指南", the
 * same algorithm in its Java, Go and Python samples): the key is `timestamp + "\n" + secret`, the
 * message is empty, and the signature is the Base64 of the HMAC-SHA256. `timestamp` is in seconds
 * and must be within an hour of Feishu's clock.
 */
export function feishuSignature(timestampSeconds: string, secret: string): string {
  return createHmac("sha256", `${timestampSeconds}\n${secret}`).update("").digest("base64");
}

const FEISHU_COLOURS: Record<TNotificationLevel, string> = { info: "blue", warning: "orange", critical: "red" };

export function traceUrl(sessionId: string | null): string | undefined {
  const origin = publicOrigin();
  return origin && sessionId ? `${origin}/chat/${sessionId}` : undefined;
}

/** The interactive card: a header in the level's colour, level and time, the message, a link to the trace. */
export function feishuCard(notification: TOutgoingNotification): Record<string, unknown> {
  const link = traceUrl(notification.sessionId);
  const elements: Record<string, unknown>[] = [
    { tag: "markdown", content: `**Level:** ${notification.level.toUpperCase()}　**Time:** ${notification.createdAt.toISOString().replace("T", " ").slice(0, 19)} UTC　**From:** ${notification.source}` },
    { tag: "hr" },
    { tag: "markdown", content: notification.message.slice(0, 4_000) || "(no details)" },
  ];
  if (link) elements.push({ tag: "markdown", content: `[Open the trace in xclaw](${link})` });
  return {
    msg_type: "interactive",
    card: {
      config: { wide_screen_mode: true },
      header: { title: { tag: "plain_text", content: `[xclaw] ${notification.title}`.slice(0, 200) }, template: FEISHU_COLOURS[notification.level] },
      elements,
    },
  };
}

/** The generic webhook's signature header value: `sha256=` + hex HMAC-SHA256 of `timestamp + "." + body`. */
export function webhookSignature(timestampSeconds: string, body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`;
}

function fetchOptions() {
  const settings = getBehaviourConfig().chronos.notifications;
  return { allowedPrivateHosts: settings.allowedPrivateHosts, timeoutMs: settings.timeoutSeconds * 1000, maxResponseBytes: 64 * 1024, redirect: "error" as const };
}

async function post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await guardedFetch(url, { method: "POST", headers: { "content-type": "application/json", "user-agent": "xclaw-notifications", ...headers }, body, signal, ...fetchOptions() });
  } catch (error) {
    if (error instanceof AppError) throw new DeliveryError(error.message, error.code === "unavailable");
    throw new DeliveryError(`The request failed: ${(error as Error).message}`, true);
  }
  const text = await response.text().catch(() => "");
  return { status: response.status, text };
}

function httpFailure(origin: string, status: number, text: string): DeliveryError {
  const detail = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return new DeliveryError(`${origin} answered HTTP ${status}${detail ? `: ${detail}` : ""}`, status >= 500 || status === 429 || status === 408);
}

async function sendFeishu(channel: TOpenedChannel, notification: TOutgoingNotification, signal?: AbortSignal): Promise<void> {
  const url = channel.config.url!;
  const payload: Record<string, unknown> = feishuCard(notification);
  if (channel.config.secret) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    payload.timestamp = timestamp;
    payload.sign = feishuSignature(timestamp, channel.config.secret);
  }
  const { status, text } = await post(url, JSON.stringify(payload), {}, signal);
  const origin = new URL(url).origin;
  if (status < 200 || status >= 300) throw httpFailure(origin, status, text);
  // Feishu answers 200 with a code: 0 is success; 11232 is its rate limit (worth retrying).
  let answer: { code?: number; msg?: string; StatusCode?: number; StatusMessage?: string } = {};
  try {
    answer = JSON.parse(text);
  } catch {
    return;
  }
  const code = answer.code ?? answer.StatusCode ?? 0;
  if (code !== 0) {
    const reason = answer.msg ?? answer.StatusMessage ?? "unknown error";
    const hint = code === 19021 ? " (the signing secret does not match the bot's)" : "";
    throw new DeliveryError(`Feishu refused the message: code ${code}, ${reason}${hint}`, code === 11232);
  }
}

async function sendWebhook(channel: TOpenedChannel, notification: TOutgoingNotification, delivery: string, signal?: AbortSignal): Promise<void> {
  const url = channel.config.url!;
  const body = JSON.stringify({
    id: notification.id,
    level: notification.level,
    title: notification.title,
    message: notification.message,
    source: notification.source,
    sessionId: notification.sessionId,
    traceUrl: traceUrl(notification.sessionId) ?? null,
    createdAt: notification.createdAt.toISOString(),
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { "x-xclaw-timestamp": timestamp, "x-xclaw-delivery": delivery };
  if (channel.config.secret) headers["x-xclaw-signature"] = webhookSignature(timestamp, body, channel.config.secret);
  const { status, text } = await post(url, body, headers, signal);
  if (status < 200 || status >= 300) throw httpFailure(new URL(url).origin, status, text);
}

function sendLog(channel: TOpenedChannel, notification: TOutgoingNotification): void {
  const write = notification.level === "critical" ? log.error : notification.level === "warning" ? log.warn : log.info;
  write("notification", {
    userId: channel.userId,
    channel: channel.name,
    level: notification.level,
    title: notification.title,
    message: notification.message.slice(0, 2_000),
    source: notification.source,
    sessionId: notification.sessionId,
  });
}

/** Sends one notification to one channel, or throws a DeliveryError. `delivery` identifies the attempt's delivery to receivers. */
export async function sendToChannel(channel: TOpenedChannel, notification: TOutgoingNotification, options: { delivery: string; signal?: AbortSignal }): Promise<void> {
  switch (channel.kind) {
    case "feishu":
      return sendFeishu(channel, notification, options.signal);
    case "webhook":
      return sendWebhook(channel, notification, options.delivery, options.signal);
    case "log":
      return sendLog(channel, notification);
  }
}
