import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { buildUiMessages } from "@/lib/sessions/history";
import { isRunActive, markInterruptedIfStale } from "@/lib/sessions/run-session";
import { deleteSession, getSessionOrThrow, renameSession, toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";
import { listSteps } from "@/lib/sessions/steps";

const ZUpdateSession = z.strictObject({ title: ZSessionTitle });

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const session = await markInterruptedIfStale(await getSessionOrThrow({ userId: user.id, sessionId: params.id }));
  const steps = await listSteps({ sessionId: session.id, userId: user.id });
  return Response.json({
    session: { ...toSessionSummary(session), live: isRunActive(session.id), interrupted: session.status === "FAILED" && session.statusReason === "interrupted" },
    messages: buildUiMessages(steps),
  });
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
