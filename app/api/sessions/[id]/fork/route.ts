import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { forkSession } from "@/lib/sessions/fork-session";
import { toSessionSummary, ZSessionTitle } from "@/lib/sessions/sessions";
import { parseStepKey } from "@/lib/sessions/steps";

const ZFork = z.strictObject({ stepId: z.string({ error: "stepId is required, e.g. s0003." }), title: ZSessionTitle.optional() });

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZFork);
  const fork = await forkSession({ userId: user.id, sessionId: params.id, seq: parseStepKey(input.stepId), title: input.title });
  return Response.json({ session: toSessionSummary(fork) }, { status: 201 });
});
