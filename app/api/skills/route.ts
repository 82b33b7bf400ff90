import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { listPersonalSkills, savePersonalSkill, ZPersonalSkillInput } from "@/lib/skills/personal-skills";
import { listSkillsForUser } from "@/lib/skills/skill-store";

/** The caller's skills: `{skills: [{name, description, available, reason?}]}`, plus their own ones' texts. */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const [skills, personal] = await Promise.all([listSkillsForUser(user.id), listPersonalSkills(user.id)]);
  return Response.json({ skills, personal });
});

/** Creates or replaces one of the caller's personal (markdown-only) skills. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZPersonalSkillInput);
  return Response.json({ skill: await savePersonalSkill({ userId: user.id, input }) }, { status: 201 });
});
