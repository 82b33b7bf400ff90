import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { normalizeEmail } from "@/lib/users/users";
import { decoyPasswordHash, verifyPassword } from "./password";
import { checkRateLimit, clearRateLimit, recordFailure } from "./rate-limit";

const log = createLogger("auth");

/**
 * Checks an email + password, with failed attempts limited per email and per IP. All failures look
 * the same to the caller ("Email or password is incorrect") and take the same time, whether or not
 * the account exists; a disabled account says so only after a correct password.
 */
export async function verifyCredentials(options: { email: string; password: string; ip: string }): Promise<User> {
  const limits = getBehaviourConfig().auth.signInRateLimit;
  const email = normalizeEmail(options.email);
  const emailKey = `sign-in:email:${email}`;
  const ipKey = `sign-in:ip:${options.ip}`;
  for (const [key, rule] of [[emailKey, limits.perEmail], [ipKey, limits.perIp]] as const) {
    const state = await checkRateLimit(key, rule);
    if (state.blocked) {
      log.warn("sign-in rate limited", { key: key.startsWith("sign-in:ip:") ? "ip" : "email", retryAfterSeconds: state.retryAfterSeconds });
      throw new AppError("rate_limited", `Too many failed sign-in attempts. Try again in ${state.retryAfterSeconds} s.`, {
        headers: { "retry-after": String(state.retryAfterSeconds) },
      });
    }
  }
  const user = email ? await db().user.findUnique({ where: { email } }) : null;
  const valid = await verifyPassword(options.password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (!user || !valid) {
    await recordFailure(emailKey, limits.perEmail);
    await recordFailure(ipKey, limits.perIp);
    throw new AppError("unauthorized", "Email or password is incorrect.");
  }
  if (user.status !== "ACTIVE") throw new AppError("forbidden", "This account is disabled. Ask an administrator.");
  await clearRateLimit(emailKey);
  return db().user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
}
