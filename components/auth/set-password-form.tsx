"use client";

import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { hardNavigate } from "@/components/hard-navigate";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";

/** Sets the password through a one-time link, then signs in with it. */
export function SetPasswordForm({ token, email, kind, passwordMinLength }: { token: string; email: string; kind: "invite" | "reset"; passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await apiRequest(`/api/account-links/${encodeURIComponent(token)}`, { method: "POST", body: { password } });
    } catch (caught) {
      setError(errorMessage(caught));
      setPending(false);
      return;
    }
    const result = await signIn("credentials", { email, password, redirect: false }).catch(() => undefined);
    if (result?.ok && !result.error) hardNavigate("/");
    else hardNavigate("/sign-in");
  }

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-4" noValidate>
      {error ? <Alert tone="error">{error}</Alert> : null}
      {/* For password managers: the account this password belongs to. */}
      <input type="email" name="email" autoComplete="username" value={email} readOnly hidden />
      <TextField
        label={kind === "invite" ? "Password" : "New password"}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        autoFocus
        hint={`At least ${passwordMinLength} characters, mixing letters with a digit or symbol.${kind === "reset" ? " Every other session of yours is signed out." : ""}`}
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <Button type="submit" pending={pending} className="w-full">
        {kind === "invite" ? "Set password and sign in" : "Change password and sign in"}
      </Button>
    </form>
  );
}
