import { agentSummaries, createAgentProfile, toProfileView, ZAgentProfileInput } from "@/lib/agents/profiles";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";

/** The agents the caller can delegate to (bundled, global, own), and creating one's own. */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ agents: await agentSummaries(user.id) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZAgentProfileInput);
  return Response.json({ agent: toProfileView(await createAgentProfile({ owner: user.id, input })) }, { status: 201 });
});
