import { getBehaviourConfig } from "@/lib/config/behaviour";
import type { TChannelKindName } from "@/lib/wire/channels";
import type { TCallbackOutcome } from "./callback-types";
import type { TOpenedAccount } from "./channel-accounts";
import { readFeishuCallback } from "./feishu/feishu-callback";
import { fetchFeishuToken, sendFeishuReply } from "./feishu/feishu-api";
import { readQqCallback } from "./qq/qq-callback";
import { fetchQqToken, sendQqReply } from "./qq/qq-api";

/**
 * What each platform contributes, behind one shape: reading a callback (signature first), sending
 * one reply to a message, checking credentials for the admin's "test", and its reply window.
 */
export type TReply = { chatScope: string; messageId: string; text: string; sequence: number };
export type TReplyWindow = { directMinutes: number; groupMinutes: number; maxReplies: number; splitCharacters: number };

export type TChannelPlatform = {
  readCallback(account: TOpenedAccount, request: Request, body: Uint8Array): TCallbackOutcome;
  sendReply(account: TOpenedAccount, reply: TReply, signal?: AbortSignal): Promise<void>;
  /** Asks the token endpoint for a token with the stored credentials; throws the platform's refusal. */
  checkCredentials(account: TOpenedAccount, signal?: AbortSignal): Promise<void>;
  replyWindow(): TReplyWindow;
};

export const PLATFORMS: Record<TChannelKindName, TChannelPlatform> = {
  qq: {
    readCallback: readQqCallback,
    sendReply: sendQqReply,
    checkCredentials: async (account, signal) => void (await fetchQqToken(account, signal)),
    replyWindow: () => getBehaviourConfig().channels.qq,
  },
  feishu: {
    readCallback: readFeishuCallback,
    sendReply: (account, reply, signal) => sendFeishuReply(account, reply, signal),
    checkCredentials: async (account, signal) => void (await fetchFeishuToken(account, signal)),
    replyWindow: () => getBehaviourConfig().channels.feishu,
  },
};
