import { workerSessionsByStep } from "@/lib/agents/task-store";
import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { getSessionOrThrow } from "@/lib/sessions/sessions";
import { listSteps, toStepRow } from "@/lib/sessions/steps";

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const session = await getSessionOrThrow({ userId: user.id, sessionId: params.id });
  const [steps, workers] = await Promise.all([listSteps({ sessionId: session.id, userId: user.id }), workerSessionsByStep(user.id, session.id)]);
  // A delegate / debate / pipeline step points at its workers' sessions: one trace tree.
  return Response.json({
    steps: steps.map((step) => {
      const children = workers.get(step.id);
      return children ? { ...toStepRow(step), childSessionId: children[0]!.sessionId, childSessions: children } : toStepRow(step);
    }),
  });
});
