import { requireUser } from "@/lib/auth/authenticate";
import { listJobExecutions, toExecutionView } from "@/lib/chronos/executions";
import { getJobOrThrow } from "@/lib/chronos/jobs-store";
import { route } from "@/lib/http/route";

/** The job's history, newest first: `{runs: [{id, status, trigger, scheduledFor, statusReason, sessionId, …}]}`. */
export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const job = await getJobOrThrow({ userId: user.id, jobId: params.id });
  const limit = Math.min(200, Math.max(1, Number(new URL(request.url).searchParams.get("limit")) || 50));
  return Response.json({ runs: (await listJobExecutions({ userId: user.id, jobId: job.id, limit })).map(toExecutionView) });
});
