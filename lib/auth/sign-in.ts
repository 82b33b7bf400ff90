import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { FORBIDDEN_CHARACTER_REASON, hasForbiddenCharacter } from "@/lib/http/request-body";
import { MAX_EMAIL_LENGTH, normalizeEmail } from "./email";
import { decoyPasswordHash, MAX_PASSWORD_LENGTH, verifyPassword } from "./password";
import { assertNotRateLimited, clearRateLimit, recordFailure } from "./rate-limit";

/**
 * Checks an email + password, with failed attempts limited per email and per IP. All failures look
 * the same to the caller ("Email or password is incorrect") and take the same time, whether or not
 * the account exists; a disabled account says so only after a correct password.
 *
 * Input that can never be a valid credential (an email over 254 characters, a password over the
 * longest one we accept) is a failed attempt like any other: it counts towards the limits but
 * skips the user lookup and scrypt, so a 20 MB "email" costs nothing.
 */
export async function verifyCredentials(options: { email: string; password: string; ip: string | undefined }): Promise<User> {
  for (const [field, value] of [["Email", options.email], ["Password", options.password]] as const) {
    if (hasForbiddenCharacter(value)) throw new AppError("bad_request", `${field} ${FORBIDDEN_CHARACTER_REASON}`);
  }
  const limits = getBehaviourConfig().auth.signInRateLimit;
  const email = normalizeEmail(options.email);
  const plausible = email.length <= MAX_EMAIL_LENGTH && options.password.length <= MAX_PASSWORD_LENGTH;
  const keys: [string, typeof limits.perEmail][] = [[`sign-in:email:${email}`, limits.perEmail]];
  // Without a known address (see client-ip.ts) the per-IP limit is skipped, never shared by all.
  if (options.ip) keys.push([`sign-in:ip:${options.ip}`, limits.perIp]);
  for (const [key, rule] of keys) await assertNotRateLimited(key, rule, "failed sign-in attempts");

  const user = email && plausible ? await db().user.findUnique({ where: { email } }) : null;
  const valid = plausible && (await verifyPassword(options.password, user?.passwordHash ?? (await decoyPasswordHash())));
  if (!user || !valid) {
    for (const [key, rule] of keys) await recordFailure(key, rule);
    throw new AppError("unauthorized", "Email or password is incorrect.");
  }
  if (user.status !== "ACTIVE") throw new AppError("forbidden", "This account is disabled. Ask an administrator.");
  await clearRateLimit(keys[0]![0]);
  return db().user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
}
