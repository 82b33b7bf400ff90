"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { CurrentPasswordField, EmailField } from "@/components/forms/account-fields";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useSaveForm } from "@/components/forms/use-save-form";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

/** A new sign-in email, confirmed with the current password. */
export function EmailForm({ email }: { email: string }) {
  const router = useRouter();
  const fallbackAction = useFormFallbackAction();
  const [newEmail, setNewEmail] = useState(email);
  const [currentPassword, setCurrentPassword] = useState("");
  const { pending, result, onSubmit } = useSaveForm(async () => {
    const saved = await apiRequest<{ email: string }>("/api/me/email", { method: "PATCH", body: { email: newEmail, currentPassword } });
    setNewEmail(saved.email);
    setCurrentPassword("");
    router.refresh();
    return `Saved. Sign in with ${saved.email} from now on.`;
  });

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="max-w-md space-y-4" noValidate>
      <EmailField label="Email address" value={newEmail} onChange={setNewEmail} />
      <CurrentPasswordField label="Current password" name="currentPassword" hint="To confirm it is you. You stay signed in." value={currentPassword} onChange={setCurrentPassword} />
      <FeedbackAlert feedback={result} />
      <Button type="submit" pending={pending} disabled={!currentPassword || newEmail.trim().toLowerCase() === email}>
        Change email
      </Button>
    </form>
  );
}
