import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { cancelJobRun } from "@/lib/jobs/admin-runs";

export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireAdmin(request);
  return Response.json({ run: await cancelJobRun(params.id, `an administrator (${user.email})`) });
});
