import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { createSession, listSessions, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

const ZCreateSession = z.strictObject({ title: ZSessionTitle.optional() });

const ZExclude = z.array(z.enum(["web", "job", "webhook", "channel", "agent"], { error: "exclude takes trigger names: web, job, webhook, channel, agent." }));

/** `?exclude=job,webhook` leaves out sessions of those triggers (the sidebar lists chats only). */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const exclude = new URL(request.url).searchParams.get("exclude");
  const excludeTriggers = exclude ? ZExclude.parse(exclude.split(",").filter(Boolean)) : undefined;
  return Response.json({ sessions: (await listSessions({ userId: user.id, excludeTriggers })).map(toSessionSummary) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const hasBody = (request.headers.get("content-length") ?? "0") !== "0" || request.headers.get("content-type")?.includes("json");
  const input = hasBody ? await readJson(request, ZCreateSession) : {};
  const session = await createSession({ userId: user.id, title: input.title });
  return Response.json({ session: toSessionSummary(session) }, { status: 201 });
});
