import { z } from "zod";
import { scanBundle, type TScanFinding } from "@/lib/bundles/scan-bundle";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { ZSkillName } from "./skill-format";
import { forgetSkillListings } from "./skill-store";

/**
 * A person's own skills: markdown instructions only (no files, so no scripts outside what their
 * own sandbox already allows), visible to them alone. They are scanned like uploads so their owner
 * sees what a reviewer would flag, but nobody else is exposed to them.
 */
export const ZPersonalSkillInput = z.strictObject({
  name: ZSkillName,
  description: z.string().trim().min(1, "must not be empty").max(1024, "must be at most 1024 characters"),
  body: z.string().trim().min(1, "must not be empty").max(64 * 1024, "must be at most 64 KiB"),
});

export type TPersonalSkill = { id: string; name: string; description: string; body: string; updatedAt: string; findings: TScanFinding[] };

function view(skill: { id: string; name: string; description: string; body: string; updatedAt: Date }): TPersonalSkill {
  const findings = scanBundle([{ path: "SKILL.md", data: Buffer.from(skill.body) }]).findings;
  return { id: skill.id, name: skill.name, description: skill.description, body: skill.body, updatedAt: skill.updatedAt.toISOString(), findings };
}

export async function listPersonalSkills(userId: string): Promise<TPersonalSkill[]> {
  return (await db().userSkill.findMany({ where: { userId }, orderBy: { name: "asc" } })).map(view);
}

export async function savePersonalSkill(options: { userId: string; input: z.infer<typeof ZPersonalSkillInput> }): Promise<TPersonalSkill> {
  const { userId, input } = options;
  const existing = await db().userSkill.findUnique({ where: { userId_name: { userId, name: input.name } } });
  if (!existing) {
    const count = await db().userSkill.count({ where: { userId } });
    const limit = getBehaviourConfig().skills.maxPersonalSkills;
    if (count >= limit) throw new AppError("conflict", `You have ${count} personal skills, the most allowed (skills.maxPersonalSkills = ${limit}). Delete one first.`);
    const shared = await db().skill.findUnique({ where: { name: input.name }, select: { name: true } });
    if (shared) throw new AppError("conflict", `A shared skill is already called ${input.name}; choose another name.`);
  }
  const saved = await db().userSkill.upsert({
    where: { userId_name: { userId, name: input.name } },
    create: { userId, ...input },
    update: { description: input.description, body: input.body },
  });
  forgetSkillListings();
  return view(saved);
}

export async function deletePersonalSkill(options: { userId: string; name: string }): Promise<void> {
  const { count } = await db().userSkill.deleteMany({ where: { userId: options.userId, name: options.name } });
  forgetSkillListings();
  if (!count) throw new AppError("not_found", "No such personal skill.");
}
