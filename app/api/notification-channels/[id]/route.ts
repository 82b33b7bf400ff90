import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { deleteChannel, updateChannel, ZUpdateChannel } from "@/lib/notifications/channels";

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateChannel);
  return Response.json({ channel: await updateChannel({ userId: user.id, channelId: params.id, input }) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteChannel({ userId: user.id, channelId: params.id });
  return new Response(null, { status: 204 });
});
