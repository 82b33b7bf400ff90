/**
 * What the sign-in callback may put in `?error=` (and in `signIn()`'s `result.error`): a code, never
 * a sentence. The sign-in page turns codes into its own sentences (components/auth/sign-in-error.ts),
 * so the wording on the real sign-in page is always ours, whatever a link says. Types only.
 */
export type TSignInErrorCode =
  | "wrong_credentials"
  | "account_disabled"
  | "invalid_characters"
  | "unavailable"
  /** With the seconds until the next attempt is allowed (the Retry-After of the 429). */
  | `rate_limited_${number}`;
