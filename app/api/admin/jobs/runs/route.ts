import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { listJobRuns, startJobRunNow, ZListJobRunsQuery, ZStartJobRun } from "@/lib/jobs/admin-runs";

export const GET = route(async (request) => {
  await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const query = ZListJobRunsQuery.parse({ status: params.get("status") || undefined, limit: params.get("limit") || undefined });
  return Response.json({ runs: await listJobRuns(query) });
});

/** Run a cron job now: `{ jobId }` → 201 with the new run. */
export const POST = route(async (request) => {
  const { user } = await requireAdmin(request);
  const { jobId } = await readJson(request, ZStartJobRun);
  return Response.json({ run: await startJobRunNow(jobId, `an administrator (${user.email})`) }, { status: 201 });
});
