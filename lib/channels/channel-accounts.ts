import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { openSecret, sealSecret, SecretBoxError, type TSealedColumn } from "@/lib/config/secret-box";
import { db } from "@/lib/db/client";
import type { ChannelAccount, ChannelKind, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { assertPublicUrl } from "@/lib/net/assert-public-url";
import type { TChannelAccountView, TChannelKindName } from "@/lib/wire/channels";

/**
 * Bot accounts on chat platforms, managed by admins (/admin/channels). Secrets are sealed at rest
 * (lib/config/secret-box.ts) and never leave the server again; the list shows what an admin needs
 * to set the bot up (the callback URL) and to see whether it works (last event, reply, error).
 * Base URLs are per account so tests point them at fake platforms; the defaults are the platforms'.
 */
const SEAL_PURPOSE = "channel-account";

/** For the rotation of NEXTAUTH_SECRET (lib/app/sealed-columns.ts). */
export const CHANNEL_ACCOUNTS_COLUMN: TSealedColumn = { table: "channel_accounts", column: "secretsSealed", purpose: SEAL_PURPOSE };

export const PLATFORM_DEFAULTS: Record<TChannelKindName, { apiBaseUrl: string; tokenUrl: (apiBaseUrl: string) => string }> = {
  qq: { apiBaseUrl: "https://api.sgroup.qq.com", tokenUrl: () => "https://bots.qq.com/app/getAppAccessToken" },
  feishu: { apiBaseUrl: "https://open.feishu.cn", tokenUrl: (apiBaseUrl) => `${apiBaseUrl}/open-apis/auth/v3/tenant_access_token/internal` },
};

export type TChannelSecrets = { appSecret: string; verificationToken?: string; encryptKey?: string };

/** An account with its secrets opened and its base URLs resolved: what the platform code works with. */
export type TOpenedAccount = {
  id: string;
  kind: TChannelKindName;
  name: string;
  appId: string;
  enabled: boolean;
  secrets: TChannelSecrets;
  apiBaseUrl: string;
  tokenUrl: string;
  /** The sealed secrets as stored: a cache key that changes whenever a secret does. */
  sealed: string;
};

const ZName = z.string().trim().min(1, "Give the bot a name.").max(100, "Names are at most 100 characters.");
const ZAppId = z.string().trim().min(1, "Enter the app id.").max(200, "The app id is longer than 200 characters.");
const ZSecret = (what: string) => z.string().trim().min(1, `Enter the ${what}.`).max(500, `The ${what} is longer than 500 characters.`);
const ZBaseUrl = z.string().trim().max(2_000, "The URL is longer than 2,000 characters.");

export const ZCreateChannelAccount = z.strictObject({
  kind: z.enum(["qq", "feishu"], { error: 'kind must be "qq" or "feishu".' }),
  name: ZName,
  appId: ZAppId,
  appSecret: ZSecret("app secret"),
  verificationToken: ZSecret("verification token").optional(),
  encryptKey: ZSecret("encrypt key").optional(),
  apiBaseUrl: ZBaseUrl.optional(),
  tokenUrl: ZBaseUrl.optional(),
});
export type TCreateChannelAccount = z.infer<typeof ZCreateChannelAccount>;

/** Secrets are replaced, never read back; null base URLs go back to the platform's. */
export const ZUpdateChannelAccount = z.strictObject({
  name: ZName.optional(),
  appId: ZAppId.optional(),
  appSecret: ZSecret("app secret").optional(),
  verificationToken: ZSecret("verification token").optional(),
  encryptKey: ZSecret("encrypt key").optional(),
  apiBaseUrl: ZBaseUrl.nullable().optional(),
  tokenUrl: ZBaseUrl.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type TUpdateChannelAccount = z.infer<typeof ZUpdateChannelAccount>;

export function kindName(kind: ChannelKind): TChannelKindName {
  return kind === "QQ" ? "qq" : "feishu";
}

function kindOf(name: TChannelKindName): ChannelKind {
  return name === "qq" ? "QQ" : "FEISHU";
}

export function callbackUrl(origin: string, account: Pick<ChannelAccount, "id" | "kind">): string {
  return account.kind === "QQ" ? `${origin}/api/channels/qq/${account.id}/callback` : `${origin}/api/channels/feishu/${account.id}/events`;
}

export function openAccount(account: ChannelAccount): TOpenedAccount {
  let secrets: TChannelSecrets;
  try {
    secrets = JSON.parse(openSecret(account.secretsSealed, SEAL_PURPOSE)) as TChannelSecrets;
  } catch (error) {
    if (error instanceof SecretBoxError) throw new AppError("conflict", `The bot "${account.name}" cannot be used: ${error.message}`);
    throw error;
  }
  const kind = kindName(account.kind);
  const apiBaseUrl = (account.apiBaseUrl ?? PLATFORM_DEFAULTS[kind].apiBaseUrl).replace(/\/+$/, "");
  return {
    id: account.id,
    kind,
    name: account.name,
    appId: account.appId,
    enabled: account.enabled,
    secrets,
    apiBaseUrl,
    tokenUrl: account.tokenUrl ?? PLATFORM_DEFAULTS[kind].tokenUrl(apiBaseUrl),
    sealed: account.secretsSealed,
  };
}

export function toAccountView(account: ChannelAccount & { _count?: { bindings: number } }, origin: string): TChannelAccountView {
  return {
    id: account.id,
    kind: kindName(account.kind),
    name: account.name,
    appId: account.appId,
    callbackUrl: callbackUrl(origin, account),
    apiBaseUrl: account.apiBaseUrl,
    tokenUrl: account.tokenUrl,
    enabled: account.enabled,
    lastEventAt: account.lastEventAt?.toISOString() ?? null,
    lastReplyAt: account.lastReplyAt?.toISOString() ?? null,
    lastError: account.lastError,
    lastErrorAt: account.lastErrorAt?.toISOString() ?? null,
    rejectedCount: account.rejectedCount,
    lastRejectedAt: account.lastRejectedAt?.toISOString() ?? null,
    bindings: account._count?.bindings ?? 0,
    createdAt: account.createdAt.toISOString(),
  };
}

/** Base URLs are checked like every address the server calls (the SSRF guard checks each call again). */
async function checkedBaseUrl(url: string | null | undefined, what: string): Promise<string | null | undefined> {
  if (url === null || url === undefined) return url;
  if (!url) return null;
  try {
    return (await assertPublicUrl(url, { allowedPrivateHosts: getBehaviourConfig().channels.allowedPrivateHosts })).href.replace(/\/+$/, "");
  } catch (error) {
    throw error instanceof AppError ? new AppError("bad_request", `${what}: ${error.message}`) : error;
  }
}

/** Feishu signs its callbacks with the encrypt key and names the app with the verification token: both are required. */
function checkSecrets(kind: TChannelKindName, secrets: TChannelSecrets): void {
  if (kind === "feishu" && (!secrets.verificationToken || !secrets.encryptKey)) {
    throw new AppError("bad_request", "A Feishu bot needs its verification token and encrypt key (Events and callbacks → Encryption strategy): without them its callbacks cannot be verified.");
  }
  if (kind === "qq" && (secrets.verificationToken || secrets.encryptKey)) {
    throw new AppError("bad_request", "A QQ bot takes its app id and app secret only: QQ signs its callbacks with the app secret.");
  }
}

export async function listChannelAccounts(): Promise<(ChannelAccount & { _count: { bindings: number } })[]> {
  return db().channelAccount.findMany({ orderBy: { createdAt: "asc" }, include: { _count: { select: { bindings: true } } } });
}

export async function getChannelAccountOrThrow(id: string): Promise<ChannelAccount> {
  const parsed = z.uuid().safeParse(id);
  const account = parsed.success ? await db().channelAccount.findUnique({ where: { id: parsed.data } }) : null;
  if (!account) throw new AppError("not_found", "No such channel account.");
  return account;
}

export async function createChannelAccount(input: TCreateChannelAccount): Promise<ChannelAccount> {
  const secrets: TChannelSecrets = { appSecret: input.appSecret, verificationToken: input.verificationToken, encryptKey: input.encryptKey };
  checkSecrets(input.kind, secrets);
  return db().channelAccount.create({
    data: {
      kind: kindOf(input.kind),
      name: input.name,
      appId: input.appId,
      secretsSealed: sealSecret(JSON.stringify(secrets), SEAL_PURPOSE),
      apiBaseUrl: await checkedBaseUrl(input.apiBaseUrl, "apiBaseUrl"),
      tokenUrl: await checkedBaseUrl(input.tokenUrl, "tokenUrl"),
    },
  });
}

export async function updateChannelAccount(id: string, input: TUpdateChannelAccount): Promise<ChannelAccount> {
  const account = await getChannelAccountOrThrow(id);
  const data: Prisma.ChannelAccountUpdateInput = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.appId !== undefined) data.appId = input.appId;
  if (input.enabled !== undefined) data.enabled = input.enabled;
  if (input.apiBaseUrl !== undefined) data.apiBaseUrl = await checkedBaseUrl(input.apiBaseUrl, "apiBaseUrl");
  if (input.tokenUrl !== undefined) data.tokenUrl = await checkedBaseUrl(input.tokenUrl, "tokenUrl");
  if (input.appSecret !== undefined || input.verificationToken !== undefined || input.encryptKey !== undefined) {
    const secrets = { ...openAccount(account).secrets };
    if (input.appSecret !== undefined) secrets.appSecret = input.appSecret;
    if (input.verificationToken !== undefined) secrets.verificationToken = input.verificationToken;
    if (input.encryptKey !== undefined) secrets.encryptKey = input.encryptKey;
    checkSecrets(kindName(account.kind), secrets);
    data.secretsSealed = sealSecret(JSON.stringify(secrets), SEAL_PURPOSE);
  }
  if (data.secretsSealed || data.appId || data.apiBaseUrl !== undefined || data.tokenUrl !== undefined) {
    // New credentials deserve a fresh start: the old error was about the old ones.
    data.lastError = null;
    data.lastErrorAt = null;
  }
  return db().channelAccount.update({ where: { id: account.id }, data });
}

/** Deletes the account with its bindings, events and conversations; the sessions stay with their owners. */
export async function deleteChannelAccount(id: string): Promise<void> {
  const account = await getChannelAccountOrThrow(id);
  await db().channelAccount.delete({ where: { id: account.id } });
}

/** What the account's last reply or failure was, for the admin list. */
export async function recordReplyOutcome(accountId: string, error?: string): Promise<void> {
  const now = new Date();
  await db().channelAccount.updateMany({
    where: { id: accountId },
    data: error === undefined ? { lastReplyAt: now } : { lastError: error.slice(0, 1_000), lastErrorAt: now },
  });
}
