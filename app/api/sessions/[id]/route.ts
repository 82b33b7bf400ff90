import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getSessionView } from "@/lib/channels/web/session-view";
import { setSessionModel } from "@/lib/sessions/session-model";
import { deleteSession, renameSession, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";

/** Rename, and/or pick the chat's model ("openai:gpt-4o", or null for the default). */
const ZUpdateSession = z
  .strictObject({ title: ZSessionTitle.optional(), model: z.string().max(300).nullable().optional() })
  .refine((value) => value.title !== undefined || value.model !== undefined, "Nothing to change: send title and/or model.");

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json(await getSessionView({ userId: user.id, sessionId: params.id }));
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateSession);
  let session = input.title !== undefined ? await renameSession({ userId: user.id, sessionId: params.id, title: input.title }) : undefined;
  if (input.model !== undefined) session = await setSessionModel({ userId: user.id, sessionId: params.id, model: input.model });
  return Response.json({ session: toSessionSummary(session!) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteSession({ userId: user.id, sessionId: params.id });
  return new Response(null, { status: 204 });
});
