"use client";

import { signIn } from "next-auth/react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { hardNavigate } from "@/components/hard-navigate";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { signInErrorMessage } from "./sign-in-error";

export function SignInForm({ initialError, registrationOpen }: { initialError?: string; registrationOpen: boolean }) {
  const fallbackAction = useFormFallbackAction();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | undefined>(initialError);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      const result = await signIn("credentials", { email, password, redirect: false });
      if (!result || result.error || !result.ok) {
        setError(signInErrorMessage(result?.error) ?? "Sign-in failed. Try again.");
        setPending(false);
        return;
      }
      hardNavigate("/");
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
      setPending(false);
    }
  }

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-4">
      {error ? <Alert tone="error">{error}</Alert> : null}
      <TextField
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        inputMode="email"
        required
        autoFocus
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <Button type="submit" pending={pending} className="w-full">
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
