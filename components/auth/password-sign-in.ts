import { signIn } from "next-auth/react";
import { signInErrorMessage } from "./sign-in-error";

/**
 * Signs in with an email and a password through next-auth, without its redirect: sign-in, and
 * sign-up and set-password right after they succeed. The outcome says why it failed, as a
 * sentence for people (`reason`), or that the server could not be reached.
 */
export type TSignInOutcome = { ok: true } | { ok: false; reason?: string; unreachable?: boolean };

export async function signInWithPassword(email: string, password: string): Promise<TSignInOutcome> {
  try {
    const result = await signIn("credentials", { email, password, redirect: false });
    if (result?.ok && !result.error) return { ok: true };
    return { ok: false, reason: signInErrorMessage(result?.error) };
  } catch {
    return { ok: false, unreachable: true };
  }
}
