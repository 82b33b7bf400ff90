import { requireUser } from "@/lib/auth/authenticate";
import { toolCatalog } from "@/lib/chronos/tool-catalog";
import { deleteJob, getJobOrThrow, toJobView, updateJob, ZUpdateJob } from "@/lib/chronos/jobs-store";
import { readJson, route } from "@/lib/http/route";

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json({ job: toJobView(await getJobOrThrow({ userId: user.id, jobId: params.id })) });
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateJob);
  const job = await updateJob({ userId: user.id, jobId: params.id, input, catalog: toolCatalog() });
  return Response.json({ job: toJobView(job) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteJob({ userId: user.id, jobId: params.id });
  return new Response(null, { status: 204 });
});
