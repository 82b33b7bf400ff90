"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { AccountLinkNotice } from "./account-link-notice";
import { AddUserForm } from "./add-user-form";
import { ActionsCell, AdminTable, Cell } from "./admin-table";
import type { TAdminUser } from "@/lib/wire/users";

type TChange = { status: "active" | "disabled" } | { role: "user" | "admin" };

function RoleBadge({ role }: { role: TAdminUser["role"] }) {
  return role === "admin" ? <Badge tone="blue">Admin</Badge> : <Badge tone="neutral">User</Badge>;
}

function StatusBadge({ status, invited }: { status: TAdminUser["status"]; invited: boolean }) {
  if (status !== "active") return <Badge tone="red">Disabled</Badge>;
  return invited ? <Badge tone="blue">Invited</Badge> : <Badge tone="green">Active</Badge>;
}

type TLink = { kind: "invite" | "reset"; email: string; path: string; expiresAt: string };

/** The buttons of a user's row: the change each makes and what the page says once it is made. */
function userActions(user: TAdminUser): { label: string; name: string; variant: "secondary" | "danger"; change: TChange; done: string }[] {
  return [
    user.role === "admin"
      ? { label: "Remove admin", name: `Remove admin ${user.email}`, variant: "secondary", change: { role: "user" }, done: "Admin role removed; they have been signed out." }
      : { label: "Make admin", name: `Make admin ${user.email}`, variant: "secondary", change: { role: "admin" }, done: "They are now an admin." },
    user.status === "active"
      ? { label: "Disable", name: `Disable ${user.email}`, variant: "danger", change: { status: "disabled" }, done: "Account disabled and signed out everywhere." }
      : { label: "Enable", name: `Enable ${user.email}`, variant: "secondary", change: { status: "active" }, done: "Account enabled; they can sign in again." },
  ];
}

export function UsersTable({ initialUsers, currentUserId }: { initialUsers: TAdminUser[]; currentUserId: string }) {
  const [users, setUsers] = useState(initialUsers);
  const [link, setLink] = useState<TLink>();
  const { pending, feedback, run } = useAction();

  const makeLink = (user: TAdminUser) =>
    run(user.id, async () => {
      setLink(undefined);
      const result = await apiRequest<{ kind: "invite" | "reset"; link: { path: string; expiresAt: string } }>(`/api/admin/users/${encodeURIComponent(user.id)}/password-link`, { method: "POST" });
      setLink({ kind: result.kind, email: user.email, ...result.link });
    });

  const update = (user: TAdminUser, change: TChange, done: string) =>
    run(user.id, async () => {
      const result = await apiRequest<{ user: TAdminUser }>(`/api/admin/users/${encodeURIComponent(user.id)}`, { method: "PATCH", body: change });
      setUsers((rows) => rows.map((row) => (row.id === user.id ? { ...row, ...result.user } : row)));
      return done;
    });

  return (
    <div className="space-y-4">
      <AddUserForm onAdded={(user) => setUsers((rows) => [...rows, user])} />
      <FeedbackAlert feedback={feedback} />
      {link ? <AccountLinkNotice {...link} /> : null}
      <AdminTable
        caption="Users"
        columns={[{ label: "User" }, { label: "Role", from: "sm" }, { label: "Status", from: "sm" }, { label: "Last sign-in", from: "lg" }, { label: "Joined", from: "xl" }]}
      >
        {users.map((user) => {
          const busy = pending === user.id;
          return (
            <tr key={user.id} className={user.status === "disabled" ? "bg-neutral-50/60 dark:bg-neutral-900/40" : undefined}>
              <Cell className="max-w-[16rem]">
                <div className="truncate font-medium text-neutral-900 dark:text-neutral-100">
                  {user.name || user.email}
                  {user.id === currentUserId ? <span className="ml-2 text-xs font-normal text-neutral-500 dark:text-neutral-400">(you)</span> : null}
                </div>
                {user.name ? <div className="truncate text-xs text-neutral-500 dark:text-neutral-400">{user.email}</div> : null}
                {/* Small screens have no room for the role and status columns; show them here. */}
                <div className="mt-1.5 flex flex-wrap gap-1.5 sm:hidden">
                  <RoleBadge role={user.role} />
                  <StatusBadge status={user.status} invited={user.invited} />
                </div>
              </Cell>
              <Cell from="sm">
                <RoleBadge role={user.role} />
              </Cell>
              <Cell from="sm">
                <StatusBadge status={user.status} invited={user.invited} />
              </Cell>
              <Cell from="lg" className="whitespace-nowrap">
                <DateTime iso={user.lastSignInAt} fallback="Never" />
              </Cell>
              <Cell from="xl" className="whitespace-nowrap">
                <DateTime iso={user.createdAt} dateOnly />
              </Cell>
              <ActionsCell>
                <Button variant="secondary" size="sm" disabled={busy} aria-label={`${user.invited ? "New invitation link for" : "Password reset link for"} ${user.email}`} onClick={() => makeLink(user)}>
                  {user.invited ? "Invitation link" : "Reset password"}
                </Button>
                {userActions(user).map((action) => (
                  <Button key={action.label} variant={action.variant} size="sm" disabled={busy} aria-label={action.name} onClick={() => update(user, action.change, action.done)}>
                    {action.label}
                  </Button>
                ))}
              </ActionsCell>
            </tr>
          );
        })}
      </AdminTable>
    </div>
  );
}
