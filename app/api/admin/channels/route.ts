import { requireAdmin } from "@/lib/auth/authenticate";
import { createChannelAccount, listChannelAccounts, toAccountView, ZCreateChannelAccount } from "@/lib/channels/channel-accounts";
import { publicOrigin } from "@/lib/config/environment";
import { readJson, route } from "@/lib/http/route";

function originOf(request: Request): string {
  return publicOrigin() ?? new URL(request.url).origin;
}

/** Admin: the QQ and Feishu bots, with the callback URL to paste on the platform. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  const origin = originOf(request);
  return Response.json({ channels: (await listChannelAccounts()).map((account) => toAccountView(account, origin)) });
});

/** `{kind, name, appId, appSecret, verificationToken?, encryptKey?, apiBaseUrl?, tokenUrl?}` → 201 `{channel}`; secrets are never shown again. */
export const POST = route(async (request) => {
  await requireAdmin(request);
  const input = await readJson(request, ZCreateChannelAccount);
  return Response.json({ channel: toAccountView(await createChannelAccount(input), originOf(request)) }, { status: 201 });
});
