"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { CurrentPasswordField, NewPasswordField } from "@/components/forms/account-fields";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useAction } from "@/components/forms/use-action";
import { hardNavigate } from "@/components/hard-navigate";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

// Long enough to read the confirmation before the sign-in page replaces it.
const REDIRECT_DELAY_MS = 1200;

export function PasswordForm({ passwordMinLength }: { passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const { busy, feedback, submit } = useAction();
  const done = feedback?.tone === "success";

  const onSubmit = submit(
    "change",
    async () => {
      await apiRequest("/api/me/password", { method: "POST", body: { currentPassword, newPassword } });
      // The server has ended every session, this one included; clear the cookie and go sign in.
      setTimeout(() => void signOut({ callbackUrl: "/sign-in" }).catch(() => hardNavigate("/sign-in")), REDIRECT_DELAY_MS);
      return "Password changed. Every session has been signed out; taking you to sign in with your new password…";
    },
    { leaving: true },
  );

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="max-w-md space-y-4" noValidate>
      <CurrentPasswordField label="Current password" name="currentPassword" disabled={done} value={currentPassword} onChange={setCurrentPassword} />
      <NewPasswordField
        label="New password"
        name="newPassword"
        disabled={done}
        passwordMinLength={passwordMinLength}
        consequence="Changing it signs you out everywhere and ends your API tokens."
        value={newPassword}
        onChange={setNewPassword}
      />
      <FeedbackAlert feedback={feedback} />
      <Button type="submit" pending={busy}>
        Change password
      </Button>
    </form>
  );
}
