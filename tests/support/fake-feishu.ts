import { createCipheriv, createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TFakeAnswer } from "./fake-qq";

/**
 * A fake Feishu open platform speaking Feishu's documented HTTP, for tests: the tenant token
 * (`POST /open-apis/auth/v3/tenant_access_token/internal` {app_id, app_secret} → {code: 0,
 * tenant_access_token, expire}) and replies (`POST /open-apis/im/v1/messages/:message_id/reply`
 * with `Authorization: Bearer {token}`, {msg_type, content, uuid}). Like Feishu it answers a wrong
 * token with code 99991663 and drops a repeated uuid; tests can make the next answers fail (429).
 * `encryptEvent` and `signEvent` build callbacks the way Feishu does. The bot's own info
 * (`GET /open-apis/bot/v3/info` → {bot: {open_id}}) and message resources (`GET /open-apis/im/v1/
 * messages/:message_id/resources/:file_key?type=image|file`, tenant token required) are served too.
 */
export type TFeishuReply = { messageId: string; authorization: string; body: { msg_type: string; content: string; uuid?: string }; text: string };

export type TFakeFeishu = {
  url: string;
  apiBaseUrl: string;
  tokenUrl: string;
  tokenRequests: { app_id: string; app_secret: string }[];
  sent: TFeishuReply[];
  attempts: TFeishuReply[];
  failNextReplies(answers: TFakeAnswer[]): void;
  /** The bot's open_id, as /open-apis/bot/v3/info tells it. */
  botOpenId: string;
  botInfoRequests: number;
  /** A message's resource: served to the bot with a valid token and the right type. */
  serveResource(messageId: string, key: string, type: "image" | "file", data: Uint8Array): void;
  /** Every resource request: "messageId/key?type=…". */
  downloads: string[];
  reset(): void;
  close(): Promise<void>;
};

export async function startFakeFeishu(options: { appId: string; secret: string }): Promise<TFakeFeishu> {
  const tokens = new Set<string>();
  const uuids = new Set<string>();
  let pending: TFakeAnswer[] = [];
  const state = { tokenRequests: [] as TFakeFeishu["tokenRequests"], sent: [] as TFeishuReply[], attempts: [] as TFeishuReply[], botInfoRequests: 0 };
  const resources = new Map<string, Uint8Array>();
  const downloads: string[] = [];
  const botOpenId = "ou_xclaw_bot";
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      body = {};
    }
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(json));
    };
    const url = request.url ?? "";
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (request.method === "GET" && url === "/open-apis/bot/v3/info") {
      state.botInfoRequests++;
      if (!bearer || !tokens.has(bearer)) return answer(400, { code: 99991663, msg: "Invalid access token for authorization." });
      return answer(200, { code: 0, msg: "ok", bot: { activate_status: 2, app_name: "xclaw", avatar_url: "", ip_white_list: [], open_id: botOpenId } });
    }
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/?]+)\?type=(image|file)$/.exec(url);
    if (request.method === "GET" && resource) {
      const [, messageId, key, type] = resource;
      downloads.push(`${decodeURIComponent(messageId!)}/${decodeURIComponent(key!)}?type=${type}`);
      if (!bearer || !tokens.has(bearer)) return answer(400, { code: 99991663, msg: "Invalid access token for authorization." });
      const data = resources.get(`${decodeURIComponent(messageId!)}/${decodeURIComponent(key!)}/${type}`);
      if (!data) return answer(400, { code: 234003, msg: "File not in msg." });
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(data.byteLength) });
      return response.end(data);
    }
    if (request.method === "POST" && url === "/open-apis/auth/v3/tenant_access_token/internal") {
      state.tokenRequests.push({ app_id: String(body.app_id), app_secret: String(body.app_secret) });
      if (body.app_id !== options.appId || body.app_secret !== options.secret) return answer(200, { code: 10014, msg: "app secret invalid" });
      const token = `t-${randomBytes(12).toString("hex")}`;
      tokens.add(token);
      return answer(200, { code: 0, msg: "ok", tenant_access_token: token, expire: 7200 });
    }
    const match = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(url);
    if (request.method === "POST" && match) {
      let text = "";
      try {
        text = String((JSON.parse(String(body.content)) as { text?: unknown }).text ?? "");
      } catch {
        text = "";
      }
      const reply: TFeishuReply = { messageId: decodeURIComponent(match[1]!), authorization: request.headers.authorization ?? "", body: body as TFeishuReply["body"], text };
      state.attempts.push(reply);
      const scripted = pending.shift();
      if (scripted) return answer(scripted.status, scripted.body ?? {}, scripted.headers);
      const token = /^Bearer (\S+)$/.exec(reply.authorization)?.[1];
      if (!token || !tokens.has(token)) return answer(400, { code: 99991663, msg: "Invalid access token for authorization." });
      if (reply.body.msg_type !== "text" || !text) return answer(400, { code: 230001, msg: "invalid content" });
      if (reply.body.uuid && uuids.has(reply.body.uuid)) return answer(200, { code: 0, msg: "success", data: { message_id: "om_repeat" } });
      if (reply.body.uuid) uuids.add(reply.body.uuid);
      state.sent.push(reply);
      return answer(200, { code: 0, msg: "success", data: { message_id: `om_${randomBytes(8).toString("hex")}` } });
    }
    answer(404, { code: 404, msg: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiBaseUrl: url,
    tokenUrl: `${url}/open-apis/auth/v3/tenant_access_token/internal`,
    get tokenRequests() {
      return state.tokenRequests;
    },
    get sent() {
      return state.sent;
    },
    get attempts() {
      return state.attempts;
    },
    failNextReplies(answers) {
      pending = [...answers];
    },
    botOpenId,
    get botInfoRequests() {
      return state.botInfoRequests;
    },
    serveResource(messageId, key, type, data) {
      resources.set(`${messageId}/${key}/${type}`, data);
    },
    downloads,
    reset() {
      resources.clear();
      downloads.length = 0;
      state.botInfoRequests = 0;
      state.tokenRequests = [];
      state.sent = [];
      state.attempts = [];
      pending = [];
      uuids.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Feishu's encryption of an event: AES-256-CBC, key SHA-256(encrypt key), random IV first, base64. */
export function encryptFeishuEvent(plain: string, encryptKey: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", createHash("sha256").update(encryptKey).digest(), iv);
  return Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final()]).toString("base64");
}

/** X-Lark-Signature: hex SHA-256 of timestamp + nonce + encrypt key + the body as sent. */
export function signFeishuEvent(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash("sha256").update(`${timestamp}${nonce}${encryptKey}${body}`).digest("hex");
}
