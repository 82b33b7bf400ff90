"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { NewPasswordField } from "@/components/forms/account-fields";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useAction } from "@/components/forms/use-action";
import { hardNavigate } from "@/components/hard-navigate";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { signInWithPassword } from "./password-sign-in";

/** Sets the password through a one-time link, then signs in with it. */
export function SetPasswordForm({ token, email, kind, passwordMinLength }: { token: string; email: string; kind: "invite" | "reset"; passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [password, setPassword] = useState("");
  const { busy, feedback, submit } = useAction();

  const onSubmit = submit(
    "set-password",
    async () => {
      await apiRequest(`/api/account-links/${encodeURIComponent(token)}`, { method: "POST", body: { password } });
      // The password is set either way; a failed sign-in leaves the sign-in page to try it.
      hardNavigate((await signInWithPassword(email, password)).ok ? "/" : "/sign-in");
    },
    { leaving: true },
  );

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-4" noValidate>
      <FeedbackAlert feedback={feedback} />
      {/* For password managers: the account this password belongs to. */}
      <input type="email" name="email" autoComplete="username" value={email} readOnly hidden />
      <NewPasswordField
        label={kind === "invite" ? "Password" : "New password"}
        autoFocus
        passwordMinLength={passwordMinLength}
        consequence={kind === "reset" ? "Every other session of yours is signed out." : undefined}
        value={password}
        onChange={setPassword}
      />
      <Button type="submit" pending={busy} className="w-full">
        {kind === "invite" ? "Set password and sign in" : "Change password and sign in"}
      </Button>
    </form>
  );
}
