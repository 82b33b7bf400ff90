import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getSessionView } from "@/lib/channels/web/session-view";
import { deleteSession, renameSession, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

const ZUpdateSession = z.strictObject({ title: ZSessionTitle });

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json(await getSessionView({ userId: user.id, sessionId: params.id }));
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateSession);
  return Response.json({ session: toSessionSummary(await renameSession({ userId: user.id, sessionId: params.id, title: input.title })) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteSession({ userId: user.id, sessionId: params.id });
  return new Response(null, { status: 204 });
});
