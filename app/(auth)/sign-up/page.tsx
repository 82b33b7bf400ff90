import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { Alert } from "@/components/ui/alert";
import { buttonClassName } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { getPageUser } from "@/lib/auth/page-session";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { isRegistrationOpen } from "@/lib/settings/registration";

export const metadata: Metadata = { title: "Create account" };

export default async function SignUpPage() {
  if (await getPageUser()) redirect("/");
  const isFirstUser = (await db().user.count()) === 0;
  const open = isFirstUser || (await isRegistrationOpen());
  return (
    <Card>
      <h1 className="text-lg font-semibold text-neutral-900 dark:text-neutral-50">Create your account</h1>
      {open ? (
        <>
          <p className="mt-1 mb-6 text-sm text-neutral-600 dark:text-neutral-400">Sign up to start working with your agent.</p>
          {isFirstUser ? (
            <Alert tone="info" role="note" className="mb-4">
              You are the first person here, so this account will be the administrator. Afterwards you can add people on the
              admin page (each gets a one-time invitation link) or let them sign up here.
            </Alert>
          ) : null}
          <SignUpForm passwordMinLength={getBehaviourConfig().auth.passwordMinLength} />
        </>
      ) : (
        <div className="mt-4 space-y-6">
          <Alert tone="info" role="status">
            Registration is closed. Ask an administrator for an account.
          </Alert>
          <Link href="/sign-in" className={buttonClassName({ variant: "secondary", className: "w-full" })}>
            Back to sign in
          </Link>
        </div>
      )}
    </Card>
  );
}
