import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { signInErrorMessage } from "@/components/auth/sign-in-error";
import { Card } from "@/components/ui/card";
import { getPageUser } from "@/lib/auth/page-session";
import { db } from "@/lib/db/client";
import { isRegistrationOpen } from "@/lib/settings/registration";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (await getPageUser()) redirect("/");
  const { error } = await searchParams;
  const initialError = signInErrorMessage(Array.isArray(error) ? error[0] : error);
  // "Create an account" only where signing up would work.
  const registrationOpen = (await db().user.count()) === 0 || (await isRegistrationOpen());
  return (
    <Card>
      <h1 className="text-lg font-semibold text-neutral-900 dark:text-neutral-50">Sign in</h1>
      <p className="mt-1 mb-6 text-sm text-neutral-600 dark:text-neutral-400">Welcome back. Sign in with your email and password.</p>
      <SignInForm initialError={initialError} registrationOpen={registrationOpen} />
    </Card>
  );
}
