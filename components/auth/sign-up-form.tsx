"use client";

import Link from "next/link";
import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { EmailField, NewPasswordField } from "@/components/forms/account-fields";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { ShownError, useAction } from "@/components/forms/use-action";
import { hardNavigate } from "@/components/hard-navigate";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { signInWithPassword } from "./password-sign-in";

export function SignUpForm({ passwordMinLength }: { passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [accountCreated, setAccountCreated] = useState(false);
  const { busy, error, submit } = useAction();

  const onSubmit = submit(
    "sign-up",
    async () => {
      await apiRequest("/api/register", { method: "POST", body: { email, password, ...(name.trim() ? { name: name.trim() } : {}) } });
      setAccountCreated(true);
      const outcome = await signInWithPassword(email, password);
      if (outcome.ok) return hardNavigate("/");
      throw new ShownError(
        outcome.unreachable
          ? "Your account was created, but the server could not be reached to sign you in. Sign in to continue."
          : `Your account was created, but signing in failed: ${outcome.reason ?? "try again"}`,
      );
    },
    { leaving: true },
  );

  // noValidate: the server checks everything, and its messages say exactly what to fix.
  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-4" noValidate>
      {error ? (
        <Alert tone="error">
          {error}
          {accountCreated ? (
            <>
              {" "}
              <Link href="/sign-in" className="font-medium underline underline-offset-4">
                Go to sign in
              </Link>
            </>
          ) : null}
        </Alert>
      ) : null}
      <TextField label="Name" name="name" type="text" autoComplete="name" optional maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
      <EmailField value={email} onChange={setEmail} />
      <NewPasswordField passwordMinLength={passwordMinLength} value={password} onChange={setPassword} />
      <Button type="submit" pending={busy} className="w-full">
        Create account
      </Button>
      <p className="text-center text-sm text-neutral-600 dark:text-neutral-400">
        Already have an account?{" "}
        <Link href="/sign-in" className="font-medium text-blue-700 underline-offset-4 hover:underline dark:text-blue-400">
          Sign in
        </Link>
      </p>
    </form>
  );
}
