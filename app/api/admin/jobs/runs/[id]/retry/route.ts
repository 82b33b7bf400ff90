import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { retryJobRun } from "@/lib/jobs/admin-runs";

export const POST = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  return Response.json({ run: await retryJobRun(params.id) });
});
