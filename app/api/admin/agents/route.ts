import { createAgentProfile, listGlobalProfiles, toProfileView, ZAgentProfileInput } from "@/lib/agents/profiles";
import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";

/** Admin: global agent profiles, which every user can delegate to. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ agents: (await listGlobalProfiles()).map(toProfileView) });
});

export const POST = route(async (request) => {
  await requireAdmin(request);
  const input = await readJson(request, ZAgentProfileInput);
  return Response.json({ agent: toProfileView(await createAgentProfile({ owner: null, input })) }, { status: 201 });
});
