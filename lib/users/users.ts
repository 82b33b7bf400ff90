import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { ZEmail } from "@/lib/auth/email";
import { hashPassword, MAX_PASSWORD_LENGTH, passwordWeakness, verifyPassword } from "@/lib/auth/password";
import { forgetAuth } from "@/lib/auth/auth-cache";
import { assertNotRateLimited, clearRateLimit, recordFailure } from "@/lib/auth/rate-limit";
import { isRegistrationOpen } from "@/lib/settings/registration";

/** What the API shows of a user: never the hash, never the session version. */
export type TPublicUser = { id: string; email: string; name: string | null; role: "user" | "admin" };
/** `invited`: added by an admin and has not chosen a password through the invitation yet. */
export type TAdminUserRow = TPublicUser & { status: "active" | "disabled"; createdAt: Date; lastSignInAt: Date | null; invited: boolean };

export function toPublicUser(user: Pick<User, "id" | "email" | "name" | "role">): TPublicUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role === "ADMIN" ? "admin" : "user" };
}

export const ZName = z.string().trim().max(100, "Name is at most 100 characters.").transform((name) => name || null);

export const ZRegister = z.strictObject({
  email: ZEmail,
  password: z.string({ error: "Password is required." }).max(MAX_PASSWORD_LENGTH, `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`),
  name: ZName.optional(),
});
export type TRegister = z.infer<typeof ZRegister>;

function assertStrongPassword(password: string, email?: string) {
  const weakness = passwordWeakness(password, { minLength: getBehaviourConfig().auth.passwordMinLength, email });
  if (weakness) throw new AppError("bad_request", weakness);
}

/**
 * Creates an account. The first account becomes admin; later ones need open registration.
 * A transaction-scoped advisory lock serialises registrations so two simultaneous first sign-ups
 * cannot both become admin. Every attempt counts towards a per-IP limit (each one costs a
 * password hash); without a known client address (see lib/auth/client-ip.ts) the limit is skipped.
 */
export async function registerUser(input: TRegister, options: { ip: string | undefined }): Promise<TPublicUser> {
  if (options.ip) {
    const { maxAttempts, windowSeconds } = getBehaviourConfig().auth.registrationRateLimit.perIp;
    const key = `register:ip:${options.ip}`;
    const rule = { maxFailures: maxAttempts, windowSeconds };
    await assertNotRateLimited(key, rule, "sign-up attempts from this address");
    await recordFailure(key, rule);
  }
  assertStrongPassword(input.password, input.email);
  const passwordHash = await hashPassword(input.password);
  const user = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242001)`;
    const isFirst = (await tx.user.count()) === 0;
    if (!isFirst && !(await isRegistrationOpen(tx))) {
      throw new AppError("forbidden", "Registration is closed. Ask an administrator for an account.");
    }
    if (await tx.user.findUnique({ where: { email: input.email }, select: { id: true } })) {
      throw new AppError("conflict", "An account with this email already exists. Sign in instead.");
    }
    return tx.user.create({
      data: { email: input.email, name: input.name ?? null, passwordHash, role: isFirst ? "ADMIN" : "USER" },
    });
  });
  return toPublicUser(user);
}

export async function getUserOrThrow(userId: string): Promise<User> {
  const user = await db().user.findUnique({ where: { id: userId } });
  if (!user) throw new AppError("not_found", "No such user.");
  return user;
}

/** The person's custom instructions for their chats (Settings); empty means none. */
export const MAX_INSTRUCTIONS_LENGTH = 4_000;
export const ZInstructions = z
  .string()
  .trim()
  .max(MAX_INSTRUCTIONS_LENGTH, `Custom instructions are at most ${MAX_INSTRUCTIONS_LENGTH.toLocaleString("en-US")} characters.`)
  .transform((text) => text || null);

export const ZUpdateProfile = z
  .strictObject({ name: ZName.optional(), instructions: ZInstructions.optional() })
  .refine((value) => value.name !== undefined || value.instructions !== undefined, "Nothing to change: send name and/or instructions.");

export async function updateProfile(options: { userId: string; name?: string | null; instructions?: string | null }): Promise<TPublicUser & { instructions: string | null }> {
  const user = await db().user.update({
    where: { id: options.userId },
    data: { ...(options.name !== undefined ? { name: options.name } : {}), ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) },
  });
  // The cached user carries the instructions that the next chat run uses.
  forgetAuth(user.id);
  return { ...toPublicUser(user), instructions: user.instructions };
}

const ZCurrentPassword = z
  .string({ error: "Current password is required." })
  .min(1, "Current password is required.")
  .max(MAX_PASSWORD_LENGTH, "Current password is incorrect.");

/** One counter for email and password changes: both are guesses at the same password. */
const passwordChangeKey = (userId: string) => `password-change:user:${userId}`;

/**
 * Checks the account's current password before a change, with wrong guesses limited per account
 * (auth.passwordChangeRateLimit). The caller clears the counter once its change is made.
 */
async function verifyCurrentPassword(user: User, currentPassword: string): Promise<void> {
  const key = passwordChangeKey(user.id);
  const rule = getBehaviourConfig().auth.passwordChangeRateLimit;
  await assertNotRateLimited(key, rule, "wrong current passwords");
  if (!(await verifyPassword(currentPassword, user.passwordHash))) {
    await recordFailure(key, rule);
    throw new AppError("bad_request", "Current password is incorrect.");
  }
}

export const ZChangeEmail = z.strictObject({ email: ZEmail, currentPassword: ZCurrentPassword });

/**
 * A new sign-in email, confirmed with the current password (limited like password changes, with
 * the same counter: both are guesses at the same password). Sessions stay valid: the account is
 * still the same person's.
 */
export async function changeEmail(options: { userId: string; email: string; currentPassword: string }): Promise<TPublicUser> {
  const user = await getUserOrThrow(options.userId);
  await verifyCurrentPassword(user, options.currentPassword);
  await clearRateLimit(passwordChangeKey(user.id));
  if (options.email === user.email) return toPublicUser(user);
  const taken = await db().user.findUnique({ where: { email: options.email }, select: { id: true } });
  if (taken) throw new AppError("conflict", "Another account already uses this email.");
  const updated = await db().user.update({ where: { id: user.id }, data: { email: options.email } });
  forgetAuth(user.id);
  return toPublicUser(updated);
}

export const ZChangePassword = z.strictObject({
  currentPassword: ZCurrentPassword,
  newPassword: z.string({ error: "New password is required." }).max(MAX_PASSWORD_LENGTH, `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`),
});

/**
 * Changing the password signs out every session and ends every API token, including the current
 * ones. Wrong current passwords are limited per account (auth.passwordChangeRateLimit): a stolen
 * session must not become an unlimited password-guessing oracle.
 */
export async function changePassword(options: { userId: string; currentPassword: string; newPassword: string }) {
  const user = await getUserOrThrow(options.userId);
  await verifyCurrentPassword(user, options.currentPassword);
  assertStrongPassword(options.newPassword, user.email);
  await db().user.update({
    where: { id: user.id },
    data: { passwordHash: await hashPassword(options.newPassword), sessionVersion: { increment: 1 } },
  });
  forgetAuth(user.id);
  await clearRateLimit(passwordChangeKey(user.id));
}

/** Ends every browser session and every API token of the account (they share the sessionVersion). */
export async function signOutEverywhere(options: { userId: string }): Promise<void> {
  await db().user.update({ where: { id: options.userId }, data: { sessionVersion: { increment: 1 } } });
  forgetAuth(options.userId);
}

function toAdminUserRow(user: User & { accountLinks?: { kind: string }[] }): TAdminUserRow {
  return {
    ...toPublicUser(user),
    status: user.status === "ACTIVE" ? "active" : "disabled",
    createdAt: user.createdAt,
    lastSignInAt: user.lastSignInAt,
    invited: !user.lastSignInAt && (user.accountLinks ?? []).some((link) => link.kind === "INVITE"),
  };
}

export async function listUsersForAdmin(): Promise<TAdminUserRow[]> {
  const users = await db().user.findMany({
    orderBy: { createdAt: "asc" },
    include: { accountLinks: { where: { usedAt: null, kind: "INVITE" }, select: { kind: true } } },
  });
  return users.map(toAdminUserRow);
}

export const ZAdminUpdateUser = z
  .strictObject({
    status: z.enum(["active", "disabled"]).optional(),
    role: z.enum(["user", "admin"]).optional(),
  })
  .refine((value) => value.status !== undefined || value.role !== undefined, "Nothing to change: send status and/or role.");
export type TAdminUpdateUser = z.infer<typeof ZAdminUpdateUser>;

/**
 * Admin changes to another account. Disabling (or demoting) bumps the session version so the
 * change takes effect on the user's very next request; disabling thereby also ends the user's API
 * tokens for good (enabling the account again does not revive them). Admins cannot lock themselves out, and
 * the last active admin cannot be removed.
 */
export async function adminUpdateUser(options: { actorId: string; userId: string; change: TAdminUpdateUser }): Promise<TAdminUserRow> {
  const parsedId = z.uuid().safeParse(options.userId);
  if (!parsedId.success) throw new AppError("not_found", "No such user.");
  const { change } = options;
  if (options.userId === options.actorId && (change.status === "disabled" || change.role === "user")) {
    throw new AppError("bad_request", "You cannot disable or demote your own account; ask another admin.");
  }
  const updated = await db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(4242002)`;
    const user = await tx.user.findUnique({ where: { id: parsedId.data } });
    if (!user) throw new AppError("not_found", "No such user.");
    const losesAdmin = user.role === "ADMIN" && user.status === "ACTIVE" && (change.role === "user" || change.status === "disabled");
    if (losesAdmin) {
      const activeAdmins = await tx.user.count({ where: { role: "ADMIN", status: "ACTIVE" } });
      if (activeAdmins <= 1) throw new AppError("bad_request", "This is the last active admin; promote someone else first.");
    }
    const revokesAccess = change.status === "disabled" || (change.role === "user" && user.role === "ADMIN");
    return tx.user.update({
      where: { id: user.id },
      data: {
        ...(change.status ? { status: change.status === "active" ? "ACTIVE" : "DISABLED" } : {}),
        ...(change.role ? { role: change.role === "admin" ? "ADMIN" : "USER" } : {}),
        ...(revokesAccess ? { sessionVersion: { increment: 1 } } : {}),
      },
    });
  });
  forgetAuth(updated.id);
  return toAdminUserRow(updated);
}
