import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { rollbackSession } from "@/lib/sessions/rollback-session";
import { toSessionSummary } from "@/lib/sessions/sessions";
import { parseStepKey } from "@/lib/sessions/steps";

const ZRollback = z.strictObject({ stepId: z.string({ error: "stepId is required, e.g. s0003." }) });

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZRollback);
  const { session, removed } = await rollbackSession({ userId: user.id, sessionId: params.id, seq: parseStepKey(input.stepId) });
  return Response.json({ session: toSessionSummary(session), removed });
});
