"use client";

import Link from "next/link";
import { useState } from "react";
import { EmailField, CurrentPasswordField } from "@/components/forms/account-fields";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { ShownError, useAction } from "@/components/forms/use-action";
import { hardNavigate } from "@/components/hard-navigate";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { signInWithPassword } from "./password-sign-in";

export function SignInForm({ initialError, registrationOpen }: { initialError?: string; registrationOpen: boolean }) {
  const fallbackAction = useFormFallbackAction();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, submit } = useAction();

  const onSubmit = submit(
    "sign-in",
    async () => {
      const outcome = await signInWithPassword(email, password);
      if (!outcome.ok) throw new ShownError(outcome.unreachable ? "Could not reach the server. Check your connection and try again." : (outcome.reason ?? "Sign-in failed. Try again."));
      hardNavigate("/");
    },
    { leaving: true },
  );

  // Until the first attempt, the error the sign-in page was opened with (next-auth's redirect).
  const shown = error ?? (busy ? undefined : initialError);
  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-4">
      {shown ? <Alert tone="error">{shown}</Alert> : null}
      <EmailField autoFocus value={email} onChange={setEmail} />
      <CurrentPasswordField value={password} onChange={setPassword} />
      <Button type="submit" pending={busy} className="w-full">
        Sign in
      </Button>
      {registrationOpen ? (
        <p className="text-center text-sm text-neutral-600 dark:text-neutral-400">
          New here?{" "}
          <Link href="/sign-up" className="font-medium text-blue-700 underline-offset-4 hover:underline dark:text-blue-400">
            Create an account
          </Link>
        </p>
      ) : (
        <p className="text-center text-sm text-neutral-600 dark:text-neutral-400">No account yet? Ask an administrator for an invitation.</p>
      )}
    </form>
  );
}
