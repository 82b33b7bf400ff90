import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { listJobRuns, ZListJobRunsQuery } from "@/lib/jobs/admin-runs";

export const GET = route(async (request) => {
  await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const query = ZListJobRunsQuery.parse({ status: params.get("status") || undefined, limit: params.get("limit") || undefined });
  return Response.json({ runs: await listJobRuns(query) });
});
