import type { Metadata } from "next";
import Link from "next/link";
import { SkillsAdmin } from "@/components/admin/skills-admin";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listSkillsForAdmin } from "@/lib/skills/skill-admin";
import { listUsersForAdmin } from "@/lib/users/users";

export const metadata: Metadata = { title: "Skills" };

export default async function AdminSkillsPage() {
  await requirePageAdmin();
  const [skills, users] = await Promise.all([listSkillsForAdmin(), listUsersForAdmin()]);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Skills" description="Uploaded skills are scanned and wait for your review; only the exact version you enable (its SHA-256) is used." />
      <p className="mb-4 text-sm">
        <Link href="/admin/plugins" className="text-blue-700 underline-offset-2 hover:underline dark:text-blue-400">
          Plugins →
        </Link>
      </p>
      <Section id="skills" title="Skills">
        <SkillsAdmin initialSkills={skills} users={users.map((user) => ({ id: user.id, email: user.email }))} />
      </Section>
    </div>
  );
}
