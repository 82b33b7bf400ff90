/**
 * next-auth hands back the message our credentials check threw, but depending on the path it is
 * URL-encoded, plain, or replaced by one of next-auth's own error codes. This turns any of those
 * into a sentence for people.
 */
const NEXT_AUTH_CODES: Record<string, string> = {
  CredentialsSignin: "Email or password is incorrect.",
  SessionRequired: "Sign in to continue.",
  AccessDenied: "You do not have access to that page.",
  Configuration: "Sign-in is misconfigured on the server. Tell an administrator.",
  Verification: "That sign-in link is no longer valid.",
  Callback: "Sign-in failed. Try again.",
  Default: "Sign-in failed. Try again.",
};

const MAX_LENGTH = 300;

function decode(text: string): string {
  if (!/%[0-9a-f]{2}/i.test(text) && !(text.includes("+") && !text.includes(" "))) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

export function signInErrorMessage(error: string | null | undefined): string | undefined {
  if (!error) return undefined;
  const decoded = decode(error).trim();
  if (!decoded) return undefined;
  const known = NEXT_AUTH_CODES[decoded];
  if (known) return known;
  return decoded.length > MAX_LENGTH ? `${decoded.slice(0, MAX_LENGTH)}…` : decoded;
}
