import { getBehaviourConfig } from "@/lib/config/behaviour";
import type { TChannelKindName } from "@/lib/wire/channels";
import type { TCallbackOutcome } from "./callback-types";
import type { TOpenedAccount } from "./channel-accounts";
import { readFeishuCallback } from "./feishu/feishu-callback";
import { downloadFeishuResource, feishuBotOpenId, fetchFeishuToken, sendFeishuReply } from "./feishu/feishu-api";
import type { TInboundAttachment, TInboundMessage } from "./inbound-message";
import { PlatformError, platformDownload } from "./platform-request";
import { readQqCallback } from "./qq/qq-callback";
import { fetchQqToken, sendQqReply } from "./qq/qq-api";

/**
 * What each platform contributes, behind one shape: reading a callback (signature first), sending
 * one reply to a message, checking credentials for the admin's "test", its reply window, whether
 * a message is addressed to this bot, and downloading a message's attachment.
 */
export type TReply = { chatScope: string; messageId: string; text: string; sequence: number };
export type TDownloadLimits = { maxBytes: number; timeoutMs: number; signal?: AbortSignal };
export type TDownloaded = { data: Uint8Array; contentType?: string };
export type TReplyWindow = { directMinutes: number; groupMinutes: number; maxReplies: number; splitCharacters: number };

export type TChannelPlatform = {
  readCallback(account: TOpenedAccount, request: Request, body: Uint8Array): TCallbackOutcome;
  sendReply(account: TOpenedAccount, reply: TReply, signal?: AbortSignal): Promise<void>;
  /** Asks the token endpoint for a token with the stored credentials; throws the platform's refusal. */
  checkCredentials(account: TOpenedAccount, signal?: AbortSignal): Promise<void>;
  replyWindow(): TReplyWindow;
  /** In the job, before anything else: whether a message is for this bot (Feishu group mentions). */
  addressesBot(account: TOpenedAccount, message: TInboundMessage, signal?: AbortSignal): Promise<boolean>;
  downloadAttachment(account: TOpenedAccount, message: TInboundMessage, attachment: TInboundAttachment, limits: TDownloadLimits): Promise<TDownloaded>;
};

function wrongSource(kind: string): never {
  throw new PlatformError(`This attachment did not come from ${kind}.`, { retriable: false });
}

export const PLATFORMS: Record<TChannelKindName, TChannelPlatform> = {
  qq: {
    readCallback: readQqCallback,
    sendReply: sendQqReply,
    checkCredentials: async (account, signal) => void (await fetchQqToken(account, signal)),
    replyWindow: () => getBehaviourConfig().channels.qq,
    // QQ sends a bot only the group messages that @ it (GROUP_AT_MESSAGE_CREATE).
    addressesBot: async () => true,
    // Files on QQ's CDN, public URLs: no token is sent with them.
    downloadAttachment: (_account, _message, attachment, limits) =>
      attachment.source === "url" ? platformDownload({ url: attachment.url, what: "QQ attachment", ...limits }) : wrongSource("QQ"),
  },
  feishu: {
    readCallback: readFeishuCallback,
    sendReply: (account, reply, signal) => sendFeishuReply(account, reply, signal),
    checkCredentials: async (account, signal) => void (await fetchFeishuToken(account, signal)),
    replyWindow: () => getBehaviourConfig().channels.feishu,
    addressesBot: async (account, message, signal) => message.chat !== "group" || (message.mentions ?? []).includes(await feishuBotOpenId(account, signal)),
    downloadAttachment: (account, message, attachment, limits) =>
      attachment.source === "feishu" ? downloadFeishuResource(account, { messageId: message.messageId, key: attachment.key, type: attachment.type }, limits) : wrongSource("Feishu"),
  },
};
