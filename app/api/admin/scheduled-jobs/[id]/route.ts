import { requireAdmin } from "@/lib/auth/authenticate";
import { setJobPausedByAdmin, ZAdminPauseJob } from "@/lib/chronos/admin-jobs";
import { readJson, route } from "@/lib/http/route";

/** `{paused}`: pause any user's job (its owner cannot resume it) or resume it. */
export const PATCH = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  const { paused } = await readJson(request, ZAdminPauseJob);
  return Response.json({ job: await setJobPausedByAdmin({ jobId: params.id, paused }) });
});
