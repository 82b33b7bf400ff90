import type { Metadata } from "next";
import { RegistrationToggle } from "@/components/admin/registration-toggle";
import { UsersTable } from "@/components/admin/users-table";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { listUsersForAdmin } from "@/lib/users/users";

export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const admin = await requirePageAdmin();
  const [users, registrationOpen] = await Promise.all([listUsersForAdmin(), isRegistrationOpen()]);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Users" description="Who can sign in, and who can administer xclaw." />
      <div className="space-y-6">
        <Section id="registration" title="Registration">
          <RegistrationToggle initialOpen={registrationOpen} />
        </Section>
        <Section
          id="users"
          title="People"
          description="Add people with an invitation link, reset a password with a one-time link, disable or promote. Disabling someone or removing their admin role signs them out at once. Nothing is deleted."
        >
          <UsersTable
            currentUserId={admin.id}
            initialUsers={users.map((user) => ({
              id: user.id,
              email: user.email,
              name: user.name,
              role: user.role,
              status: user.status,
              createdAt: user.createdAt.toISOString(),
              lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
              invited: user.invited,
            }))}
          />
        </Section>
      </div>
    </div>
  );
}
