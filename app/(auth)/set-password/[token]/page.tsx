import type { Metadata } from "next";
import Link from "next/link";
import { SetPasswordForm } from "@/components/auth/set-password-form";
import { Alert } from "@/components/ui/alert";
import { buttonClassName } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { isAppError } from "@/lib/errors";
import { describeAccountLink, type TAccountLinkView } from "@/lib/users/account-links";

export const metadata: Metadata = { title: "Choose a password", referrer: "no-referrer" };

/** Where an invitation or a password reset link leads: choose a password, then you are signed in. */
export default async function SetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  let link: TAccountLinkView | undefined;
  let problem: string | undefined;
  try {
    link = await describeAccountLink(token);
  } catch (error) {
    if (!isAppError(error)) throw error;
    problem = error.message;
  }
  return (
    <Card>
      <h1 className="text-lg font-semibold text-neutral-900 dark:text-neutral-50">{link?.kind === "invite" ? `Welcome${link.name ? `, ${link.name}` : ""}` : "Choose a new password"}</h1>
      {link ? (
        <>
          <p className="mt-1 mb-6 text-sm text-neutral-600 dark:text-neutral-400">
            {link.kind === "invite" ? "An administrator added you to xclaw. Choose a password to finish setting up your account." : "An administrator made this link so you can choose a new password."}{" "}
            You will sign in as <strong className="break-all">{link.email}</strong>.
          </p>
          <SetPasswordForm token={token} email={link.email} kind={link.kind} passwordMinLength={getBehaviourConfig().auth.passwordMinLength} />
        </>
      ) : (
        <div className="mt-4 space-y-6">
          <Alert tone="warning" role="status">
            {problem}
          </Alert>
          <Link href="/sign-in" className={buttonClassName({ variant: "secondary", className: "w-full" })}>
            Go to sign in
          </Link>
        </div>
      )}
    </Card>
  );
}
