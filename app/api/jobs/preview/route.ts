import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { describeSchedule, parseSchedule, upcomingRuns, ZSchedule } from "@/lib/chronos/schedule";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { readJson, route } from "@/lib/http/route";

const ZPreview = z.strictObject({ schedule: ZSchedule, count: z.int().min(1).max(20).optional() });

/** The schedule form's preview: `{schedule}` → `{scheduleText, nextRuns}` (ISO times), or 400 saying what is wrong. */
export const POST = route(async (request) => {
  await requireUser(request);
  const { schedule, count } = await readJson(request, ZPreview);
  const parsed = parseSchedule(schedule, { minIntervalMinutes: getBehaviourConfig().chronos.minIntervalMinutes });
  return Response.json({ scheduleText: describeSchedule(parsed), nextRuns: upcomingRuns(parsed, count ?? 5).map((date) => date.toISOString()) });
});
