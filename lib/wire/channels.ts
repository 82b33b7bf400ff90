/**
 * Wire types of the chat channels (QQ and Feishu bots: lib/channels), shared by the API routes and
 * the browser (components/admin, components/settings). Types only — no runtime code — so client
 * components may import this module. Dates are ISO strings.
 */
export type TChannelKindName = "qq" | "feishu";

/** Where a session started from a channel came from (GET /api/sessions). */
export type TSessionChannel = { kind: TChannelKindName; accountId: string | null };

/** A bot account on /admin/channels. Secrets are never part of it. */
export type TChannelAccountView = {
  id: string;
  kind: TChannelKindName;
  name: string;
  appId: string;
  /** Where the platform sends events: paste it into the bot's settings on the platform. */
  callbackUrl: string;
  /** Set when the platform's APIs are not the default ones. */
  apiBaseUrl: string | null;
  tokenUrl: string | null;
  enabled: boolean;
  lastEventAt: string | null;
  lastReplyAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /** Callbacks refused for a bad signature, missing headers or a stale timestamp. */
  rejectedCount: number;
  lastRejectedAt: string | null;
  bindings: number;
  createdAt: string;
};

/** One of my bindings in Settings → Channels. */
export type TChannelBindingView = {
  id: string;
  kind: TChannelKindName;
  accountName: string;
  /** The platform's id of the person (an openid): enough to tell two bindings apart. */
  externalUserId: string;
  createdAt: string;
};

/** POST /api/me/channel-bindings/code: shown once; only its hash is stored. */
export type TChannelBindingCode = { code: string; expiresAt: string };
