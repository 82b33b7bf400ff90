import { z } from "zod";

/**
 * An account's email is its sign-in name: sign-in, registration and admin changes all compare it
 * in this one form, so it belongs with authentication rather than with account management.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** RFC 5321's limit for a forward path; the unique index on users.email relies on it too. */
export const MAX_EMAIL_LENGTH = 254;

export const ZEmail = z
  .string({ error: "Email is required." })
  .trim()
  .max(MAX_EMAIL_LENGTH, "Email is too long.")
  .pipe(z.email({ error: "Enter a valid email address." }))
  .transform(normalizeEmail);
