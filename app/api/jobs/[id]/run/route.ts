import { requireUser } from "@/lib/auth/authenticate";
import { runJobNow } from "@/lib/chronos/run-now";
import { route } from "@/lib/http/route";

/** Run now → 202 `{executionId, sessionId}`; the run goes on in the background (follow the session). */
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json(await runJobNow({ userId: user.id, jobId: params.id }), { status: 202 });
});
