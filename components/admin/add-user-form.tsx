"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { AccountLinkNotice } from "./account-link-notice";
import type { TAdminUser } from "@/lib/wire/users";

type TCreated = { user: { id: string; email: string; name: string | null; role: "user" | "admin" }; link: { path: string; expiresAt: string } };

/** Adds a person (also while registration is closed) and shows their one-time invitation link. */
export function AddUserForm({ onAdded }: { onAdded: (user: TAdminUser) => void }) {
  const fallbackAction = useFormFallbackAction();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [admin, setAdmin] = useState(false);
  const [created, setCreated] = useState<TCreated>();
  const { busy, feedback, submit } = useAction();

  const onSubmit = submit("add", async () => {
    setCreated(undefined);
    const result = await apiRequest<TCreated>("/api/admin/users", { method: "POST", body: { email, ...(name.trim() ? { name } : {}), role: admin ? "admin" : "user" } });
    setCreated(result);
    onAdded({ ...result.user, status: "active", createdAt: new Date().toISOString(), lastSignInAt: null, invited: true });
    setEmail("");
    setName("");
    setAdmin(false);
  });

  return (
    <div className="space-y-4">
      <form method="post" action={fallbackAction} onSubmit={onSubmit} className="grid gap-3 sm:grid-cols-2" noValidate>
        <TextField label="Email of the new person" name="email" type="email" autoComplete="off" inputMode="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
        <TextField label="Their name" name="name" type="text" autoComplete="off" optional maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
        <label className="flex items-center gap-2 text-sm sm:col-span-2">
          <input type="checkbox" checked={admin} onChange={(event) => setAdmin(event.target.checked)} className="size-4 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:accent-neutral-100" />
          Make them an admin
        </label>
        <div className="sm:col-span-2">
          <Button type="submit" pending={busy} disabled={!email.trim()}>
            Add person
          </Button>
        </div>
      </form>
      <FeedbackAlert feedback={feedback} />
      {created ? <AccountLinkNotice kind="invite" email={created.user.email} path={created.link.path} expiresAt={created.link.expiresAt} /> : null}
    </div>
  );
}
