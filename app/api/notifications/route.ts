import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { listNotifications, ZListNotificationsQuery } from "@/lib/notifications/inbox";

/** The bell: `{notifications: [{id, level, title, message, sessionId, readAt, …}], unread}`, newest first. */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const params = new URL(request.url).searchParams;
  const query = ZListNotificationsQuery.parse({ limit: params.get("limit") ?? undefined, unread: params.get("unread") ?? undefined });
  return Response.json(await listNotifications({ userId: user.id, limit: query.limit, unreadOnly: query.unread === "true" }));
});
