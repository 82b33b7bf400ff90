import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getSkillForAdmin, updateSkill, ZSkillPatch } from "@/lib/skills/skill-admin";

/** One skill with its revisions and their scan reports. */
export const GET = route<{ name: string }>(async (request, { params }) => {
  await requireAdmin(request);
  return Response.json(await getSkillForAdmin(params.name));
});

/** `{enabled?, visibility?, userIds?, sha256?, acknowledgeRisks?}` */
export const PATCH = route<{ name: string }>(async (request, { params }) => {
  const { user } = await requireAdmin(request);
  const patch = await readJson(request, ZSkillPatch);
  return Response.json({ skill: await updateSkill({ name: params.name, patch, adminId: user.id }) });
});
