import { deleteAgentProfile, toProfileView, updateAgentProfile, ZAgentProfilePatch } from "@/lib/agents/profiles";
import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  const patch = await readJson(request, ZAgentProfilePatch);
  return Response.json({ agent: toProfileView(await updateAgentProfile({ owner: null, id: params.id, patch })) });
});

export const DELETE = route<{ id: string }>(async (request, { params }) => {
  await requireAdmin(request);
  await deleteAgentProfile({ owner: null, id: params.id });
  return new Response(null, { status: 204 });
});
