import { deleteAgentProfile, getProfileOrThrow, toProfileView, updateAgentProfile, ZAgentProfilePatch } from "@/lib/agents/profiles";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";

/** One of the caller's own profiles; anyone else's (and global ones) are "not found" here. */
export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  return Response.json({ agent: toProfileView(await getProfileOrThrow({ owner: user.id, id: params.id })) });
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const patch = await readJson(request, ZAgentProfilePatch);
  return Response.json({ agent: toProfileView(await updateAgentProfile({ owner: user.id, id: params.id, patch })) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteAgentProfile({ owner: user.id, id: params.id });
  return new Response(null, { status: 204 });
});
