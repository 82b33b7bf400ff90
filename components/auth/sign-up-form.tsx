"use client";

import { signIn } from "next-auth/react";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { hardNavigate } from "@/components/hard-navigate";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { signInErrorMessage } from "./sign-in-error";

export function SignUpForm({ passwordMinLength }: { passwordMinLength: number }) {
  const fallbackAction = useFormFallbackAction();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [accountCreated, setAccountCreated] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await apiRequest("/api/register", {
        method: "POST",
        body: { email, password, ...(name.trim() ? { name: name.trim() } : {}) },
      });
    } catch (caught) {
      setError(errorMessage(caught));
      setPending(false);
      return;
    }
    setAccountCreated(true);
    try {
      const result = await signIn("credentials", { email, password, redirect: false });
      if (!result || result.error || !result.ok) {
        setError(
          `Your account was created, but signing in failed: ${signInErrorMessage(result?.error) ?? "try again"}`,
        );
        setPending(false);
        return;
      }
      hardNavigate("/");
    } catch {
      setError("Your account was created, but the server could not be reached to sign you in. Sign in to continue.");
      setPending(false);
    }
  }

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
      <TextField
        label="Name"
        name="name"
        type="text"
        autoComplete="name"
        optional
        maxLength={100}
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <TextField
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        inputMode="email"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint={`At least ${passwordMinLength} characters, mixing letters with a digit or symbol.`}
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <Button type="submit" pending={pending} className="w-full">
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
