import { createTeamSession, ZCreateTeam } from "@/lib/agents/team-sessions";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { toSessionSummary } from "@/lib/sessions/sessions";

/** Starts a team chat: a new session bound to these members and router. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateTeam);
  return Response.json({ session: toSessionSummary(await createTeamSession({ userId: user.id, ...input })) }, { status: 201 });
});
