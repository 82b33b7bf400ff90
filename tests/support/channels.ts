import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { POST as createAccountRoute } from "@/app/api/admin/channels/route";
import { POST as feishuEvents } from "@/app/api/channels/feishu/[accountId]/events/route";
import { POST as qqCallback } from "@/app/api/channels/qq/[accountId]/callback/route";
import { POST as createCodeRoute } from "@/app/api/me/channel-bindings/code/route";
import { encryptFeishuEvent, signFeishuEvent } from "./fake-feishu";
import { signQqCallback } from "./fake-qq";
import { call } from "./http";
import { waitUntil } from "./jobs";

/** Helpers for the channel tests: bot accounts through the admin API, signed callbacks, binding. */
export async function createChannelAccount(adminCookie: string, body: Record<string, unknown>): Promise<{ id: string; callbackUrl: string }> {
  const created = await call(createAccountRoute, "/api/admin/channels", { cookie: adminCookie, body });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.channel;
}

export function nowSeconds(offsetSeconds = 0): string {
  return String(Math.floor(Date.now() / 1000) + offsetSeconds);
}

/** A callback to the QQ route, signed with `secret` (unless headers say otherwise), over the body as given. */
export async function postQq(accountId: string, payload: unknown, options: { secret: string; timestamp?: string; headers?: Record<string, string>; rawBody?: string }) {
  const body = options.rawBody ?? JSON.stringify(payload);
  const timestamp = options.timestamp ?? nowSeconds();
  const headers = { "x-signature-ed25519": signQqCallback(options.secret, timestamp, body), "x-signature-timestamp": timestamp, "user-agent": "QQBot-Callback", ...options.headers };
  return call(qqCallback, `/api/channels/qq/${accountId}/callback`, { rawBody: body, headers, params: { accountId }, origin: null });
}

/** An attachment as QQ describes it in a message event. */
export type TQqAttachment = { content_type: string; filename: string; url: string; size?: number; width?: number; height?: number };

export function qqDirectMessage(options: { openid: string; content: string; id?: string; sentAt?: Date; attachments?: TQqAttachment[] }) {
  const id = options.id ?? `ROBOT1.0_${randomBytes(8).toString("hex")}`;
  const attachments = options.attachments ? { attachments: options.attachments } : {};
  return { op: 0, id: `C2C_MESSAGE_CREATE:${id}`, t: "C2C_MESSAGE_CREATE", d: { id, content: options.content, timestamp: (options.sentAt ?? new Date()).toISOString(), author: { user_openid: options.openid }, ...attachments } };
}

export function qqGroupMessage(options: { group: string; member: string; content: string; id?: string; sentAt?: Date; attachments?: TQqAttachment[] }) {
  const id = options.id ?? `ROBOT1.0_${randomBytes(8).toString("hex")}`;
  return {
    op: 0,
    id: `GROUP_AT_MESSAGE_CREATE:${id}`,
    t: "GROUP_AT_MESSAGE_CREATE",
    d: {
      id,
      content: ` ${options.content}`,
      timestamp: (options.sentAt ?? new Date()).toISOString(),
      group_openid: options.group,
      group_id: options.group,
      author: { member_openid: options.member, id: options.member },
      ...(options.attachments ? { attachments: options.attachments } : {}),
    },
  };
}

/** A Feishu event, encrypted with the encrypt key and signed (unless told not to). */
export async function postFeishu(accountId: string, event: unknown, options: { encryptKey: string; encrypt?: boolean; sign?: boolean; timestamp?: string; headers?: Record<string, string>; rawBody?: string }) {
  const body = options.rawBody ?? JSON.stringify(options.encrypt === false ? event : { encrypt: encryptFeishuEvent(JSON.stringify(event), options.encryptKey) });
  const timestamp = options.timestamp ?? nowSeconds();
  const nonce = randomBytes(8).toString("hex");
  const headers =
    options.sign === false ? { ...options.headers } : { "x-lark-request-timestamp": timestamp, "x-lark-request-nonce": nonce, "x-lark-signature": signFeishuEvent(timestamp, nonce, options.encryptKey, body), ...options.headers };
  return call(feishuEvents, `/api/channels/feishu/${accountId}/events`, { rawBody: body, headers, params: { accountId }, origin: null });
}

/** The fake Feishu's bot (tests/support/fake-feishu.ts): a mention given as a bare key is of this bot. */
export const FEISHU_BOT_OPEN_ID = "ou_xclaw_bot";

export function feishuMessage(options: {
  token: string;
  openId: string;
  text: string;
  chat?: "p2p" | "group";
  chatId?: string;
  eventId?: string;
  messageId?: string;
  /** A key ("@_user_1") mentions the bot; {key, openId, name} someone else. */
  mentions?: (string | { key: string; openId: string; name: string })[];
  /** Another message type than text, with its content (image: {image_key}, file: {file_key, file_name}). */
  messageType?: string;
  content?: Record<string, unknown>;
}) {
  return {
    schema: "2.0",
    header: { event_id: options.eventId ?? randomBytes(16).toString("hex"), token: options.token, create_time: String(Date.now()), event_type: "im.message.receive_v1", tenant_key: "tenant", app_id: "cli_test" },
    event: {
      sender: { sender_id: { open_id: options.openId, union_id: "on_x", user_id: "u_x" }, sender_type: "user", tenant_key: "tenant" },
      message: {
        message_id: options.messageId ?? `om_${randomBytes(8).toString("hex")}`,
        create_time: String(Date.now()),
        chat_id: options.chatId ?? `oc_${options.openId}`,
        chat_type: options.chat ?? "p2p",
        message_type: options.messageType ?? "text",
        content: JSON.stringify(options.content ?? { text: options.text }),
        mentions: (options.mentions ?? []).map((mention) => {
          const { key, openId, name } = typeof mention === "string" ? { key: mention, openId: FEISHU_BOT_OPEN_ID, name: "xclaw" } : mention;
          return { key, id: { open_id: openId, union_id: `on_${openId}`, user_id: "" }, name, tenant_key: "tenant" };
        }),
      },
    },
  };
}

export async function bindingCode(cookie: string): Promise<string> {
  const created = await call(createCodeRoute, "/api/me/channel-bindings/code", { cookie, method: "POST" });
  expect(created.status).toBe(201);
  return created.json.code as string;
}

/** Waits until `list` has at least `count` entries (replies arrive from the job runner). */
export async function waitForCount(list: () => unknown[], count: number, what: string, timeoutMs = 30_000): Promise<void> {
  await waitUntil(() => list().length >= count, `${what} (${list().length} of ${count})`, timeoutMs);
}
