"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { AccountLinkNotice } from "./account-link-notice";
import { AddUserForm } from "./add-user-form";

export type TAdminUser = {
  id: string;
  email: string;
  name: string | null;
  role: "user" | "admin";
  status: "active" | "disabled";
  createdAt: string;
  lastSignInAt: string | null;
  /** Added by an admin and has not used the invitation yet. */
  invited: boolean;
};

type TChange = { status: "active" | "disabled" } | { role: "user" | "admin" };

function Badge({ tone, children }: { tone: "neutral" | "blue" | "red" | "green"; children: React.ReactNode }) {
  const tones = {
    neutral: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
    blue: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300",
    red: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
    green: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300",
  };
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

function RoleBadge({ role }: { role: TAdminUser["role"] }) {
  return role === "admin" ? <Badge tone="blue">Admin</Badge> : <Badge tone="neutral">User</Badge>;
}

function StatusBadge({ status, invited }: { status: TAdminUser["status"]; invited: boolean }) {
  if (status !== "active") return <Badge tone="red">Disabled</Badge>;
  return invited ? <Badge tone="blue">Invited</Badge> : <Badge tone="green">Active</Badge>;
}

type TLink = { kind: "invite" | "reset"; email: string; path: string; expiresAt: string };

export function UsersTable({ initialUsers, currentUserId }: { initialUsers: TAdminUser[]; currentUserId: string }) {
  const [users, setUsers] = useState(initialUsers);
  const [pendingId, setPendingId] = useState<string>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [link, setLink] = useState<TLink>();

  async function makeLink(user: TAdminUser) {
    setPendingId(user.id);
    setError(undefined);
    setNotice(undefined);
    setLink(undefined);
    try {
      const result = await apiRequest<{ kind: "invite" | "reset"; link: { path: string; expiresAt: string } }>(`/api/admin/users/${encodeURIComponent(user.id)}/password-link`, { method: "POST" });
      setLink({ kind: result.kind, email: user.email, ...result.link });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPendingId(undefined);
    }
  }

  async function update(user: TAdminUser, change: TChange, done: string) {
    setPendingId(user.id);
    setError(undefined);
    setNotice(undefined);
    try {
      const result = await apiRequest<{ user: TAdminUser }>(`/api/admin/users/${encodeURIComponent(user.id)}`, {
        method: "PATCH",
        body: change,
      });
      setUsers((rows) => rows.map((row) => (row.id === user.id ? { ...row, ...result.user } : row)));
      setNotice(done);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPendingId(undefined);
    }
  }

  return (
    <div className="space-y-4">
      <AddUserForm onAdded={(user) => setUsers((rows) => [...rows, user])} />
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      {link ? <AccountLinkNotice {...link} /> : null}
      <div className="overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Users</caption>
          <thead className="bg-neutral-50 text-xs font-medium text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
            <tr>
              <th scope="col" className="px-3 py-2.5 sm:px-4">User</th>
              <th scope="col" className="hidden px-4 py-2.5 sm:table-cell">Role</th>
              <th scope="col" className="hidden px-4 py-2.5 sm:table-cell">Status</th>
              <th scope="col" className="hidden px-4 py-2.5 lg:table-cell">Last sign-in</th>
              <th scope="col" className="hidden px-4 py-2.5 xl:table-cell">Joined</th>
              <th scope="col" className="px-3 py-2.5 text-right sm:px-4">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {users.map((user) => {
              const busy = pendingId === user.id;
              const isSelf = user.id === currentUserId;
              return (
                <tr key={user.id} className={user.status === "disabled" ? "bg-neutral-50/60 dark:bg-neutral-900/40" : undefined}>
                  <td className="max-w-[16rem] px-3 py-3 sm:px-4">
                    <div className="truncate font-medium text-neutral-900 dark:text-neutral-100">
                      {user.name || user.email}
                      {isSelf ? <span className="ml-2 text-xs font-normal text-neutral-500 dark:text-neutral-400">(you)</span> : null}
                    </div>
                    {user.name ? <div className="truncate text-xs text-neutral-500 dark:text-neutral-400">{user.email}</div> : null}
                    {/* Small screens have no room for the role and status columns; show them here. */}
                    <div className="mt-1.5 flex flex-wrap gap-1.5 sm:hidden">
                      <RoleBadge role={user.role} />
                      <StatusBadge status={user.status} invited={user.invited} />
                    </div>
                  </td>
                  <td className="hidden px-4 py-3 sm:table-cell">
                    <RoleBadge role={user.role} />
                  </td>
                  <td className="hidden px-4 py-3 sm:table-cell">
                    <StatusBadge status={user.status} invited={user.invited} />
                  </td>
                  <td className="hidden px-4 py-3 whitespace-nowrap text-neutral-600 lg:table-cell dark:text-neutral-400">
                    <DateTime iso={user.lastSignInAt} fallback="Never" />
                  </td>
                  <td className="hidden px-4 py-3 whitespace-nowrap text-neutral-600 xl:table-cell dark:text-neutral-400">
                    <DateTime iso={user.createdAt} dateOnly />
                  </td>
                  <td className="px-3 py-3 sm:px-4">
                    <div className="flex flex-col items-stretch justify-end gap-2 sm:flex-row sm:items-center">
                      <Button variant="secondary" size="sm" disabled={busy} aria-label={`${user.invited ? "New invitation link for" : "Password reset link for"} ${user.email}`} onClick={() => makeLink(user)}>
                        {user.invited ? "Invitation link" : "Reset password"}
                      </Button>
                      {user.role === "admin" ? (
                        <Button
                          variant="secondary"
                          size="sm"
                          disabled={busy}
                          aria-label={`Remove admin ${user.email}`}
                          onClick={() => update(user, { role: "user" }, "Admin role removed; they have been signed out.")}
                        >
                          Remove admin
                        </Button>
                      ) : (
                        <Button
                          variant="secondary"
                          size="sm"
                          disabled={busy}
                          aria-label={`Make admin ${user.email}`}
                          onClick={() => update(user, { role: "admin" }, "They are now an admin.")}
                        >
                          Make admin
                        </Button>
                      )}
                      {user.status === "active" ? (
                        <Button
                          variant="danger"
                          size="sm"
                          disabled={busy}
                          aria-label={`Disable ${user.email}`}
                          onClick={() => update(user, { status: "disabled" }, "Account disabled and signed out everywhere.")}
                        >
                          Disable
                        </Button>
                      ) : (
                        <Button
                          variant="secondary"
                          size="sm"
                          disabled={busy}
                          aria-label={`Enable ${user.email}`}
                          onClick={() => update(user, { status: "active" }, "Account enabled; they can sign in again.")}
                        >
                          Enable
                        </Button>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
