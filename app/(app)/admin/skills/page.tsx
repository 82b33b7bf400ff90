import type { Metadata } from "next";
import { SkillsAdmin } from "@/components/admin/skills-admin";
import { ExtensionAdminPage } from "@/components/extensions/extension-admin-page";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listSkillsForAdmin } from "@/lib/skills/skill-admin";
import { listUsersForAdmin } from "@/lib/users/users";

export const metadata: Metadata = { title: "Skills" };

export default async function AdminSkillsPage() {
  await requirePageAdmin();
  const [skills, users] = await Promise.all([listSkillsForAdmin(), listUsersForAdmin()]);
  return (
    <ExtensionAdminPage
      id="skills"
      title="Skills"
      description="Uploaded skills are scanned and wait for your review; only the exact version you enable (its SHA-256) is used."
      other={{ href: "/admin/plugins", label: "Plugins" }}
    >
      <SkillsAdmin initialSkills={skills} users={users.map((user) => ({ id: user.id, email: user.email }))} />
    </ExtensionAdminPage>
  );
}
