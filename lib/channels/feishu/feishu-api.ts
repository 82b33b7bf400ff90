import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { processSingleton } from "@/lib/process-singleton";
import { accessToken, forgetAccessToken, keyOf, secondsOf, type TAccessToken } from "../access-tokens";
import type { TOpenedAccount } from "../channel-accounts";
import { PlatformError, platformDownload, platformRequest } from "../platform-request";

/**
 * Feishu's open API for replies: a tenant_access_token (`/open-apis/auth/v3/tenant_access_token/
 * internal`, two hours) and `POST /open-apis/im/v1/messages/:message_id/reply`. Feishu answers
 * errors with a non-zero `code`, sometimes under HTTP 200; 99991400 is its rate limit. A reply
 * carries a `uuid` (Feishu drops a repeat within an hour), so a retried job does not post twice.
 */
const RATE_LIMIT_CODES = [99991400];
// Feishu issues a new token once the old one has less than 30 minutes left.
const REFRESH_MARGIN_SECONDS = 300;
// Codes for a token Feishu no longer takes.
const INVALID_TOKEN_CODES = new Set([99991661, 99991663, 99991668]);

function checkCode(json: unknown, what: string): void {
  const { code, msg } = (json ?? {}) as { code?: unknown; msg?: unknown };
  if (code === 0) return;
  const number = typeof code === "number" ? code : undefined;
  throw new PlatformError(`${what} failed${typeof msg === "string" ? `: ${msg}` : ""}${number === undefined ? "" : ` (code ${number})`}.`, {
    retriable: number !== undefined && (RATE_LIMIT_CODES.includes(number) || INVALID_TOKEN_CODES.has(number)),
    code: number,
  });
}

export async function fetchFeishuToken(account: TOpenedAccount, signal?: AbortSignal): Promise<TAccessToken> {
  const json = (await platformRequest({
    url: account.tokenUrl,
    body: { app_id: account.appId, app_secret: account.secrets.appSecret },
    what: "Feishu tenant access token",
    rateLimitCodes: RATE_LIMIT_CODES,
    signal,
  })) as { tenant_access_token?: unknown; expire?: unknown };
  checkCode(json, "Feishu tenant access token");
  const expiresInSeconds = secondsOf(json.expire);
  if (typeof json.tenant_access_token !== "string" || !json.tenant_access_token || !expiresInSeconds) {
    throw new PlatformError("Feishu tenant access token: no tenant_access_token and expire in the answer. Check the app id and app secret.", { retriable: false });
  }
  return { token: json.tenant_access_token, expiresInSeconds };
}

export async function sendFeishuReply(account: TOpenedAccount, reply: { messageId: string; text: string; sequence: number }, signal?: AbortSignal): Promise<void> {
  const token = await accessToken(account, { fetchToken: () => fetchFeishuToken(account), refreshMarginSeconds: REFRESH_MARGIN_SECONDS });
  const uuid = createHash("sha256").update(`${reply.messageId}:${reply.sequence}`).digest("hex").slice(0, 50);
  try {
    const json = await platformRequest({
      url: `${account.apiBaseUrl}/open-apis/im/v1/messages/${encodeURIComponent(reply.messageId)}/reply`,
      headers: { authorization: `Bearer ${token}` },
      body: { msg_type: "text", content: JSON.stringify({ text: reply.text }), uuid },
      what: "Feishu reply",
      rateLimitCodes: RATE_LIMIT_CODES,
      signal,
    });
    checkCode(json, "Feishu reply");
  } catch (error) {
    // A token Feishu no longer takes: the retry fetches a fresh one.
    if (error instanceof PlatformError && error.code !== undefined && INVALID_TOKEN_CODES.has(error.code)) {
      forgetAccessToken(account);
      throw new PlatformError(error.message, { retriable: true, status: error.status, code: error.code });
    }
    throw error;
  }
}

/**
 * The bot's own open_id (`GET /open-apis/bot/v3/info` → `{bot: {open_id, app_name}}`), to tell a
 * group message that mentions this bot from one that mentions someone else. Asked once per bot and
 * credentials and kept for a day (it does not change for an app); concurrent asks share one call.
 */
const botOpenIds = processSingleton("feishu-bot-open-ids", () =>
  new LRUCache<string, string, { account: TOpenedAccount; signal?: AbortSignal }>({
    max: 1_000,
    ttl: 24 * 60 * 60_000,
    fetchMethod: async (_key, _stale, { context }) => {
      const { account, signal } = context;
      const token = await accessToken(account, { fetchToken: () => fetchFeishuToken(account), refreshMarginSeconds: REFRESH_MARGIN_SECONDS });
      const json = await platformRequest({ method: "GET", url: `${account.apiBaseUrl}/open-apis/bot/v3/info`, headers: { authorization: `Bearer ${token}` }, what: "Feishu bot info", rateLimitCodes: RATE_LIMIT_CODES, signal });
      checkCode(json, "Feishu bot info");
      const openId = (json as { bot?: { open_id?: unknown } }).bot?.open_id;
      if (typeof openId !== "string" || !openId) throw new PlatformError("Feishu bot info: no bot.open_id in the answer. Is the Bot capability enabled for the app?", { retriable: false });
      return openId;
    },
  }),
);

export async function feishuBotOpenId(account: TOpenedAccount, signal?: AbortSignal): Promise<string> {
  try {
    const openId = await botOpenIds.fetch(keyOf(account), { context: { account, signal } });
    if (!openId) throw new PlatformError("Feishu bot info: no open_id.", { retriable: true });
    return openId;
  } catch (error) {
    if (error instanceof PlatformError && error.code !== undefined && INVALID_TOKEN_CODES.has(error.code)) forgetAccessToken(account);
    throw error;
  }
}

/** A message's picture or file: `GET /open-apis/im/v1/messages/:message_id/resources/:key?type=image|file`. */
export async function downloadFeishuResource(
  account: TOpenedAccount,
  resource: { messageId: string; key: string; type: "image" | "file" },
  limits: { maxBytes: number; timeoutMs: number; signal?: AbortSignal },
): Promise<{ data: Uint8Array; contentType?: string }> {
  const token = await accessToken(account, { fetchToken: () => fetchFeishuToken(account), refreshMarginSeconds: REFRESH_MARGIN_SECONDS });
  const path = `/open-apis/im/v1/messages/${encodeURIComponent(resource.messageId)}/resources/${encodeURIComponent(resource.key)}?type=${resource.type}`;
  try {
    return await platformDownload({ url: `${account.apiBaseUrl}${path}`, headers: { authorization: `Bearer ${token}` }, what: "Feishu message resource", ...limits });
  } catch (error) {
    if (error instanceof PlatformError && error.code !== undefined && INVALID_TOKEN_CODES.has(error.code)) forgetAccessToken(account);
    throw error;
  }
}
