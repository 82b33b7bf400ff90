import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import { listSteps, toStepRow } from "@/lib/sessions/steps";

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const session = await getSessionOrThrow({ userId: user.id, sessionId: params.id });
  return Response.json({ steps: (await listSteps({ sessionId: session.id, userId: user.id })).map(toStepRow) });
});
