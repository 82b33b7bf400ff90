import { createPrivateKey, randomBytes, sign } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake QQ bot platform speaking QQ's documented HTTP, for tests: the token endpoint
 * (`POST /app/getAppAccessToken` {appId, clientSecret} → {access_token, expires_in}, expires_in as
 * a string by default, as QQ sends it) and the OpenAPI's passive replies (`POST /v2/users/{openid}/
 * messages`, `/v2/groups/{group_openid}/messages` with `Authorization: QQBot {token}`, msg_id and
 * msg_seq). Like QQ it refuses a wrong token, a repeated msg_seq and a sixth reply to one message;
 * tests can make the next answers fail (22009 rate limits, 5xx) and slow the token endpoint down.
 * `signCallback` signs a callback body the way QQ does, with the bot secret as the Ed25519 seed.
 * It also plays QQ's media CDN: `serveFile` puts bytes at `GET /files/<name>` (the URL QQ puts in
 * a message's attachments), with or without a content-length.
 */
export type TQqSend = {
  path: string;
  scope: "user" | "group";
  target: string;
  authorization: string;
  body: { content: string; msg_type: number; msg_id: string; msg_seq: number };
  /** performance.now() when it arrived (benchmarks). */
  receivedAt: number;
};
export type TFakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

export type TFakeQq = {
  url: string;
  tokenUrl: string;
  apiBaseUrl: string;
  /** Every token request, in order. */
  tokenRequests: { appId: string; clientSecret: string }[];
  /** Every reply that was accepted (2xx). */
  sent: TQqSend[];
  /** Every reply attempt, accepted or not. */
  attempts: TQqSend[];
  /** Answers for the next reply attempts, in order (then the usual behaviour). */
  failNextReplies(answers: TFakeAnswer[]): void;
  /** expires_in of the next tokens; a string by default, as QQ sends it. */
  tokenLifetime: number | string;
  tokenDelayMs: number;
  /** Serves `data` at `${url}/files/${name}`; `chunked` leaves out the content-length. */
  serveFile(name: string, data: Uint8Array, options?: { contentType?: string; chunked?: boolean }): string;
  /** Every GET of a file, by path. */
  downloads: string[];
  reset(): void;
  close(): Promise<void>;
};

const MAX_REPLIES = 5;

export async function startFakeQq(options: { appId: string; secret: string }): Promise<TFakeQq> {
  const tokens = new Set<string>();
  let pending: TFakeAnswer[] = [];
  const seen = new Map<string, Set<number>>();
  const files = new Map<string, { data: Uint8Array; contentType: string; chunked: boolean }>();
  const downloads: string[] = [];
  const state = {
    tokenRequests: [] as TFakeQq["tokenRequests"],
    sent: [] as TQqSend[],
    attempts: [] as TQqSend[],
    tokenLifetime: "7200" as number | string,
    tokenDelayMs: 0,
  };
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
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(json));
    };
    const url = request.url ?? "";
    if (request.method === "GET" && url.startsWith("/files/")) {
      downloads.push(url);
      const file = files.get(url);
      if (!file) return answer(404, { code: 404, message: "no such file" });
      if (file.chunked) {
        response.writeHead(200, { "content-type": file.contentType });
        // Written in pieces without a length: the size is only known by reading.
        for (let offset = 0; offset < file.data.byteLength; offset += 64 * 1024) response.write(file.data.subarray(offset, offset + 64 * 1024));
        return response.end();
      }
      response.writeHead(200, { "content-type": file.contentType, "content-length": String(file.data.byteLength) });
      return response.end(file.data);
    }
    if (request.method === "POST" && url === "/app/getAppAccessToken") {
      state.tokenRequests.push({ appId: String(body.appId), clientSecret: String(body.clientSecret) });
      if (state.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, state.tokenDelayMs));
      if (body.appId !== options.appId || body.clientSecret !== options.secret) return answer(400, { code: 100016, message: "invalid appid or secret" });
      const token = randomBytes(12).toString("hex");
      tokens.add(token);
      return answer(200, { access_token: token, expires_in: state.tokenLifetime });
    }
    const match = /^\/v2\/(users|groups)\/([^/]+)\/messages$/.exec(url);
    if (request.method === "POST" && match) {
      const send: TQqSend = {
        path: url,
        scope: match[1] === "users" ? "user" : "group",
        target: decodeURIComponent(match[2]!),
        authorization: request.headers.authorization ?? "",
        body: body as TQqSend["body"],
        receivedAt: performance.now(),
      };
      state.attempts.push(send);
      const scripted = pending.shift();
      if (scripted) return answer(scripted.status, scripted.body ?? {}, scripted.headers);
      const token = /^QQBot (\S+)$/.exec(send.authorization)?.[1];
      if (!token || !tokens.has(token)) return answer(401, { code: 11244, message: "token not exist or expire" });
      const { msg_id: messageId, msg_seq: sequence } = send.body;
      if (typeof messageId !== "string" || typeof sequence !== "number" || sequence < 1) return answer(400, { code: 40034004, message: "invalid msg_id or msg_seq" });
      const used = seen.get(messageId) ?? new Set<number>();
      if (used.has(sequence)) return answer(400, { code: 40054005, message: "msg_seq duplicated" });
      if (used.size >= MAX_REPLIES) return answer(400, { code: 40034025, message: "passive reply limit reached" });
      used.add(sequence);
      seen.set(messageId, used);
      state.sent.push(send);
      return answer(200, { id: randomBytes(8).toString("hex"), timestamp: new Date().toISOString() });
    }
    answer(404, { code: 404, message: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake = {
    url,
    tokenUrl: `${url}/app/getAppAccessToken`,
    apiBaseUrl: url,
    get tokenRequests() {
      return state.tokenRequests;
    },
    get sent() {
      return state.sent;
    },
    get attempts() {
      return state.attempts;
    },
    get tokenLifetime() {
      return state.tokenLifetime;
    },
    set tokenLifetime(value: number | string) {
      state.tokenLifetime = value;
    },
    get tokenDelayMs() {
      return state.tokenDelayMs;
    },
    set tokenDelayMs(value: number) {
      state.tokenDelayMs = value;
    },
    downloads,
    serveFile(name: string, data: Uint8Array, options: { contentType?: string; chunked?: boolean } = {}) {
      files.set(`/files/${name}`, { data, contentType: options.contentType ?? "application/octet-stream", chunked: options.chunked ?? false });
      return `${url}/files/${name}`;
    },
    failNextReplies(answers: TFakeAnswer[]) {
      pending = [...answers];
    },
    reset() {
      state.tokenRequests = [];
      state.sent = [];
      state.attempts = [];
      state.tokenLifetime = "7200";
      state.tokenDelayMs = 0;
      pending = [];
      seen.clear();
      files.clear();
      downloads.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake as TFakeQq;
}

/** QQ's signature of a callback: Ed25519 over timestamp + body, the key seeded with the bot secret repeated to 32 bytes. */
export function signQqCallback(secret: string, timestamp: string, body: string | Buffer): string {
  let seed = secret;
  while (Buffer.byteLength(seed) < 32) seed = seed.repeat(2);
  const key = createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(seed).subarray(0, 32)]), format: "der", type: "pkcs8" });
  return sign(null, Buffer.concat([Buffer.from(timestamp), Buffer.isBuffer(body) ? body : Buffer.from(body)]), key).toString("hex");
}
