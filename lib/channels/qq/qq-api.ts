import { accessToken, forgetAccessToken, secondsOf, type TAccessToken } from "../access-tokens";
import type { TOpenedAccount } from "../channel-accounts";
import { parseChatScope } from "../inbound-message";
import { PlatformError, platformRequest } from "../platform-request";

/**
 * QQ's OpenAPI for passive replies: an access token from `getAppAccessToken` (`{appId,
 * clientSecret}` → `{access_token, expires_in}`, expires_in a number or a string), then
 * `POST /v2/users/{openid}/messages` or `/v2/groups/{group_openid}/messages` with
 * `Authorization: QQBot {token}`, the message id being answered and msg_seq (1..5 per message).
 */
const RATE_LIMIT_CODES = [22009];
// QQ hands out a new token only in the last 60 seconds of the old one's life.
const REFRESH_MARGIN_SECONDS = 50;

export async function fetchQqToken(account: TOpenedAccount, signal?: AbortSignal): Promise<TAccessToken> {
  const json = (await platformRequest({
    url: account.tokenUrl,
    body: { appId: account.appId, clientSecret: account.secrets.appSecret },
    what: "QQ access token",
    rateLimitCodes: RATE_LIMIT_CODES,
    signal,
  })) as { access_token?: unknown; expires_in?: unknown; code?: unknown; message?: unknown };
  const expiresInSeconds = secondsOf(json.expires_in);
  if (typeof json.access_token !== "string" || !json.access_token || !expiresInSeconds) {
    const reason = typeof json.message === "string" ? json.message : "no access_token and expires_in in the answer";
    throw new PlatformError(`QQ access token: ${reason}. Check the app id and app secret.`, { retriable: false });
  }
  return { token: json.access_token, expiresInSeconds };
}

export async function sendQqReply(account: TOpenedAccount, reply: { chatScope: string; messageId: string; text: string; sequence: number }, signal?: AbortSignal): Promise<void> {
  const token = await accessToken(account, { fetchToken: () => fetchQqToken(account), refreshMarginSeconds: REFRESH_MARGIN_SECONDS });
  const scope = parseChatScope(reply.chatScope);
  const path = scope.chat === "group" ? `/v2/groups/${encodeURIComponent(scope.id)}/messages` : `/v2/users/${encodeURIComponent(scope.id)}/messages`;
  try {
    await platformRequest({
      url: `${account.apiBaseUrl}${path}`,
      headers: { authorization: `QQBot ${token}` },
      body: { content: reply.text, msg_type: 0, msg_id: reply.messageId, msg_seq: reply.sequence },
      what: "QQ reply",
      rateLimitCodes: RATE_LIMIT_CODES,
      signal,
    });
  } catch (error) {
    // A token the platform no longer takes: the retry fetches a fresh one.
    if (error instanceof PlatformError && error.status === 401) {
      forgetAccessToken(account);
      throw new PlatformError(error.message, { retriable: true, status: 401, code: error.code });
    }
    throw error;
  }
}
