import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { listStepRows } from "@/lib/sessions/step-rows";
import { getSessionOrThrow } from "@/lib/sessions/sessions";

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const session = await getSessionOrThrow({ userId: user.id, sessionId: params.id });
  return Response.json({ steps: await listStepRows({ userId: user.id, sessionId: session.id }) });
});
