"use client";

import { signOut } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { hardNavigate } from "@/components/hard-navigate";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";

// Long enough to read the confirmation before the sign-in page replaces it.
const REDIRECT_DELAY_MS = 1200;

export function PasswordForm({ passwordMinLength }: { passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await apiRequest("/api/me/password", { method: "POST", body: { currentPassword, newPassword } });
    } catch (caught) {
      setError(errorMessage(caught));
      setPending(false);
      return;
    }
    // The server has ended every session, this one included; clear the cookie and go sign in.
    setDone(true);
    await new Promise((resolve) => setTimeout(resolve, REDIRECT_DELAY_MS));
    await signOut({ callbackUrl: "/sign-in" }).catch(() => hardNavigate("/sign-in"));
  }

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="max-w-md space-y-4" noValidate>
      <TextField
        label="Current password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        disabled={done}
        value={currentPassword}
        onChange={(event) => setCurrentPassword(event.target.value)}
      />
      <TextField
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        disabled={done}
        hint={`At least ${passwordMinLength} characters, mixing letters with a digit or symbol. Changing it signs you out everywhere and ends your API tokens.`}
        value={newPassword}
        onChange={(event) => setNewPassword(event.target.value)}
      />
      {error ? <Alert tone="error">{error}</Alert> : null}
      {done ? (
        <Alert tone="success">Password changed. Every session has been signed out; taking you to sign in with your new password…</Alert>
      ) : null}
      <Button type="submit" pending={pending}>
        Change password
      </Button>
    </form>
  );
}
