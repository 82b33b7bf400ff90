import { requireAdmin } from "@/lib/auth/authenticate";
import { ZSchedulesPaused } from "@/lib/chronos/admin-jobs";
import { areSchedulesPaused, setSchedulesPaused } from "@/lib/chronos/schedules-paused";
import { readJson, route } from "@/lib/http/route";

/** The global switch: `{paused: true}` stops every schedule (slots that pass are not made up). */
export const POST = route(async (request) => {
  await requireAdmin(request);
  const { paused } = await readJson(request, ZSchedulesPaused);
  await setSchedulesPaused(paused);
  return Response.json({ paused: await areSchedulesPaused() });
});
