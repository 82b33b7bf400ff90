import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/card";
import { SkillsPage } from "@/components/skills/skills-page";
import { requirePageUser } from "@/lib/auth/page-session";
import { listPersonalSkills } from "@/lib/skills/personal-skills";
import { listSkillsForUser } from "@/lib/skills/skill-store";

export const metadata: Metadata = { title: "Skills" };

export default async function SkillsRoute() {
  const user = await requirePageUser();
  const [skills, personal] = await Promise.all([listSkillsForUser(user.id), listPersonalSkills(user.id)]);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Skills" description="Instructions the agent can follow for particular tasks. It picks them itself; $name in a message asks for one." />
      <SkillsPage initialSkills={skills} initialPersonal={personal} />
    </div>
  );
}
