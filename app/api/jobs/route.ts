import { requireUser } from "@/lib/auth/authenticate";
import { toolCatalog } from "@/lib/chronos/tool-catalog";
import { createJob, listJobs, toJobView, ZCreateJob } from "@/lib/chronos/jobs-store";
import { readJson, route } from "@/lib/http/route";

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ jobs: (await listJobs({ userId: user.id })).map(toJobView) });
});

/** `{name, schedule: {cron, tz} | {everyMinutes} | {at}, prompt, tools?, maxSteps?, timeoutSeconds?, channels?, enabled?}` → 201 `{job}`. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateJob);
  const job = await createJob({ userId: user.id, input, catalog: toolCatalog() });
  return Response.json({ job: toJobView(job) }, { status: 201 });
});
