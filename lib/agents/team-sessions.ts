import { z } from "zod";
import { listAgents, ZAgentName } from "./profiles";
import { TEAM_PROFILE, ZTeamRule, type TTeamProfile } from "./run-profile";
import type { ChatSession, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createSession, ZSessionTitle } from "@/lib/sessions/sessions";

/**
 * Team chats: a session bound to a team when it is created (members and a router, stored as its
 * run profile). Each message goes to the member the router picks — who answers with its own role,
 * tools and memory of the turns it had — or to the orchestrator (lib/agents/agents-capability.ts).
 */
export const ZCreateTeam = z.strictObject({
  title: ZSessionTitle.optional(),
  members: z.array(ZAgentName).min(1, "A team needs at least one member.").max(10, "A team has at most 10 members."),
  rules: z.array(ZTeamRule).max(50).default([]),
  modelRouter: z.boolean().default(false),
});
export type TCreateTeam = z.infer<typeof ZCreateTeam>;

export async function createTeamSession(options: { userId: string } & TCreateTeam): Promise<ChatSession> {
  const members = [...new Set(options.members)];
  const available = (await listAgents(options.userId)).map((agent) => agent.name);
  const unknown = members.filter((member) => !available.includes(member));
  if (unknown.length) throw new AppError("bad_request", `Unknown agent${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `"${name}"`).join(", ")}. Available agents: ${available.join(", ")}.`);
  const stray = options.rules.find((rule) => !members.includes(rule.member));
  if (stray) throw new AppError("bad_request", `The rule for "${stray.member}" names someone who is not in the team.`);
  const profile: TTeamProfile = { kind: TEAM_PROFILE, members, rules: options.rules, modelRouter: options.modelRouter };
  return createSession({ userId: options.userId, title: options.title ?? `Team: ${members.join(", ")}`, trigger: "web", runProfile: profile as unknown as Prisma.InputJsonValue });
}
