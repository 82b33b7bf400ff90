import type { TSignInErrorCode } from "@/lib/wire/sign-in";

/**
 * The sentence the sign-in page shows for an error code: next-auth's own codes (it puts them in
 * `?error=` on its error redirects) and ours (lib/wire/sign-in.ts). Anything else gets a generic
 * sentence: the text of a `?error=` parameter is never shown, since anyone can write a link to the
 * real sign-in page with wording of their choosing (phishing).
 */
const GENERIC = "Sign-in failed. Try again.";

const OURS: Record<Exclude<TSignInErrorCode, `rate_limited_${number}`>, string> = {
  wrong_credentials: "Email or password is incorrect.",
  account_disabled: "This account is disabled. Ask an administrator.",
  invalid_characters: "The email or password contains a character that is not allowed.",
  unavailable: "Sign-in is unavailable right now. Try again shortly.",
};

const NEXT_AUTH: Record<string, string> = {
  CredentialsSignin: "Email or password is incorrect.",
  SessionRequired: "Sign in to continue.",
  AccessDenied: "You do not have access to that page.",
  Configuration: "Sign-in is misconfigured on the server. Tell an administrator.",
  Verification: "That sign-in link is no longer valid.",
  Callback: GENERIC,
  Default: GENERIC,
};

const MESSAGES: Record<string, string> = { ...NEXT_AUTH, ...OURS };

const RATE_LIMITED = /^rate_limited_(\d{1,6})$/;

export function signInErrorMessage(error: string | null | undefined): string | undefined {
  if (!error) return undefined;
  if (Object.hasOwn(MESSAGES, error)) return MESSAGES[error];
  const limited = RATE_LIMITED.exec(error);
  if (limited) return `Too many failed sign-in attempts. Try again in ${Number(limited[1])} s.`;
  return GENERIC;
}
