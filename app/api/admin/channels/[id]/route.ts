import { requireAdmin } from "@/lib/auth/authenticate";
import { deleteChannelAccount, updateChannelAccount, toAccountView, ZUpdateChannelAccount } from "@/lib/channels/channel-accounts";
import { publicOrigin } from "@/lib/config/environment";
import { readJson, route } from "@/lib/http/route";

/** Admin: rename, switch on or off, replace secrets or base URLs (secrets are never read back). */
export const PATCH = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  const input = await readJson(request, ZUpdateChannelAccount);
  const account = await updateChannelAccount(params.id, input);
  return Response.json({ channel: toAccountView(account, publicOrigin() ?? new URL(request.url).origin) });
});

/** Admin: deletes the bot with its bindings; the sessions stay with their owners. */
export const DELETE = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  await deleteChannelAccount(params.id);
  return new Response(null, { status: 204 });
});
