import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { sendTestNotification } from "@/lib/notifications/test-channel";

/** Send test → `{ok, error, channel}`: whether it arrived, and the channel with its updated last error. */
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json(await sendTestNotification({ userId: user.id, channelId: params.id }));
});
