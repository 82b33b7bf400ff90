import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { createSession, listSessions, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

const ZCreateSession = z.strictObject({ title: ZSessionTitle.optional() });

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ sessions: (await listSessions({ userId: user.id })).map(toSessionSummary) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const hasBody = (request.headers.get("content-length") ?? "0") !== "0" || request.headers.get("content-type")?.includes("json");
  const input = hasBody ? await readJson(request, ZCreateSession) : {};
  const session = await createSession({ userId: user.id, title: input.title });
  return Response.json({ session: toSessionSummary(session) }, { status: 201 });
});
