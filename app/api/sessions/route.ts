import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { createSession, listSessions, openNewChat, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

/** `reuseEmpty`: the "New chat" button; opens the newest still-empty chat instead of adding another. */
const ZCreateSession = z.strictObject({ title: ZSessionTitle.optional(), reuseEmpty: z.boolean().optional() });

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ sessions: (await listSessions({ userId: user.id })).map(toSessionSummary) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const hasBody = (request.headers.get("content-length") ?? "0") !== "0" || request.headers.get("content-type")?.includes("json");
  const input: z.infer<typeof ZCreateSession> = hasBody ? await readJson(request, ZCreateSession) : {};
  if (input.reuseEmpty && !input.title) {
    const { session, reused } = await openNewChat({ userId: user.id });
    return Response.json({ session: toSessionSummary(session), reused }, { status: reused ? 200 : 201 });
  }
  const session = await createSession({ userId: user.id, title: input.title });
  return Response.json({ session: toSessionSummary(session) }, { status: 201 });
});
