import { requireUser } from "@/lib/auth/authenticate";
import { runEventsResponse } from "@/lib/channels/web/web-channel";
import { route } from "@/lib/http/route";
import { followSessionRun } from "@/lib/runs/follow-run";

// useChat's reconnect endpoint: the live run of this session (in this or any other app process), or 204 when nothing runs.
export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const events = await followSessionRun({ userId: user.id, sessionId: params.id, signal: request.signal });
  return events ? runEventsResponse(events) : new Response(null, { status: 204 });
});
