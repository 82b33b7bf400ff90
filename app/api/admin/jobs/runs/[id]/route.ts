import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { getJobRunOrThrow } from "@/lib/jobs/admin-runs";

export const GET = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  return Response.json({ run: await getJobRunOrThrow(params.id) });
});
