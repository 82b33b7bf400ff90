import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { markNotificationsRead, ZMarkRead } from "@/lib/notifications/inbox";

/** `{ids}` (or `{all: true}`) → `{updated, unread}`. Other users' ids change nothing. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZMarkRead);
  return Response.json(await markNotificationsRead({ userId: user.id, ids: input.ids, all: input.all }));
});
