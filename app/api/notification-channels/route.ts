import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { createChannel, listChannels, ZCreateChannel } from "@/lib/notifications/channels";

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ channels: await listChannels({ userId: user.id }) });
});

/** `{name, kind: feishu | webhook | log, url?, secret?}` → 201 `{channel, secret?}` (a webhook channel's generated signing secret, shown once). */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateChannel);
  return Response.json(await createChannel({ userId: user.id, input }), { status: 201 });
});
