import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { isJsonMediaType } from "@/lib/http/request-body";
import { readJson, route } from "@/lib/http/route";
import { createSession, listSessions, listSidebarSessions, openNewChat, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

/** `reuseEmpty`: the "New chat" button; opens the newest still-empty chat instead of adding another. */
const ZCreateSession = z.strictObject({ title: ZSessionTitle.optional(), reuseEmpty: z.boolean().optional() });

const ZExclude = z.array(z.enum(["web", "job", "webhook", "channel", "agent", "api"], { error: "exclude takes trigger names: web, job, webhook, channel, agent, api." }));

/**
 * Every session, newest first; `?exclude=job,webhook` leaves out sessions of those triggers;
 * `?view=sidebar` is what the sidebar lists (chats, then the newest scheduled-job and alert runs).
 */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const parameters = new URL(request.url).searchParams;
  if (parameters.get("view") === "sidebar") return Response.json({ sessions: (await listSidebarSessions({ userId: user.id })).map(toSessionSummary) });
  const exclude = parameters.get("exclude");
  const excludeTriggers = exclude ? ZExclude.parse(exclude.split(",").filter(Boolean)) : undefined;
  return Response.json({ sessions: (await listSessions({ userId: user.id, excludeTriggers })).map(toSessionSummary) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  // A body without Content-Length (chunked) is known by its declared JSON type.
  const hasBody = (request.headers.get("content-length") ?? "0") !== "0" || isJsonMediaType(request.headers.get("content-type"));
  const input: z.infer<typeof ZCreateSession> = hasBody ? await readJson(request, ZCreateSession) : {};
  if (input.reuseEmpty && !input.title) {
    const { session, reused } = await openNewChat({ userId: user.id });
    return Response.json({ session: toSessionSummary(session), reused }, { status: reused ? 200 : 201 });
  }
  const session = await createSession({ userId: user.id, title: input.title });
  return Response.json({ session: toSessionSummary(session) }, { status: 201 });
});
