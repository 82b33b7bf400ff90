import { requireAdmin } from "@/lib/auth/authenticate";
import { listAllJobs } from "@/lib/chronos/admin-jobs";
import { areSchedulesPaused } from "@/lib/chronos/schedules-paused";
import { route } from "@/lib/http/route";

/** Every user's scheduled jobs, and whether all schedules are paused. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ jobs: await listAllJobs(), schedulesPaused: await areSchedulesPaused() });
});
