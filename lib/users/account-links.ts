import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { forgetAuth } from "@/lib/auth/auth-cache";
import { hashPassword, MAX_PASSWORD_LENGTH, passwordWeakness } from "@/lib/auth/password";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { Prisma, type AccountLink, type User } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { ZEmail } from "@/lib/auth/email";
import { toPublicUser, ZName, type TPublicUser } from "./users";

/**
 * One-time links an admin passes on to a person, because xclaw has no mail server:
 * - an invitation, made when the admin adds someone: the person chooses their first password;
 * - a password reset: the person chooses a new password, which ends every session and API token.
 * The token (256 random bits) is shown once, to the admin; only its SHA-256 is stored. A link works
 * once and until it expires; making a new link of the same kind for a person voids the unused old one.
 */
export type TAccountLinkKind = "invite" | "reset";
export type TAccountLinkGrant = { path: string; expiresAt: Date };

const TOKEN_BYTES = 32;
export const ACCOUNT_LINK_PATH = "/set-password/";

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Tokens are base64url; anything else is not worth a database lookup. */
function looksLikeToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

function lifetimeMs(kind: TAccountLinkKind): number {
  const auth = getBehaviourConfig().auth;
  return kind === "invite" ? auth.inviteDays * 86_400_000 : auth.passwordResetHours * 3_600_000;
}

async function createLink(options: { userId: string; createdById: string | null; kind: TAccountLinkKind }): Promise<TAccountLinkGrant> {
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  const kind = options.kind === "invite" ? "INVITE" : "RESET";
  const expiresAt = new Date(Date.now() + lifetimeMs(options.kind));
  await db().$transaction([
    db().accountLink.deleteMany({ where: { userId: options.userId, kind, usedAt: null } }),
    db().accountLink.create({ data: { kind, tokenHash: hashToken(token), userId: options.userId, createdById: options.createdById, expiresAt } }),
  ]);
  return { path: `${ACCOUNT_LINK_PATH}${token}`, expiresAt };
}

export const ZAdminCreateUser = z.strictObject({
  email: ZEmail,
  name: ZName.optional(),
  role: z.enum(["user", "admin"]).default("user"),
});
export type TAdminCreateUser = z.infer<typeof ZAdminCreateUser>;

/**
 * An admin adds a person (registration may be closed). The account has no usable password until
 * the person opens the invitation link and chooses one.
 */
export async function adminCreateUser(options: { actorId: string; input: TAdminCreateUser }): Promise<{ user: TPublicUser; link: TAccountLinkGrant }> {
  const { input } = options;
  // Nobody knows this password: the account cannot be signed into before the invitation is used.
  const passwordHash = await hashPassword(randomBytes(32).toString("base64url"));
  let user: User;
  try {
    user = await db().user.create({ data: { email: input.email, name: input.name ?? null, passwordHash, role: input.role === "admin" ? "ADMIN" : "USER" } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("conflict", "An account with this email already exists.");
    throw error;
  }
  const link = await createLink({ userId: user.id, createdById: options.actorId, kind: "invite" });
  return { user: toPublicUser(user), link };
}

/**
 * A new one-time link for an existing person: an invitation again while they have never signed
 * in with a password of their own, otherwise a password reset. Their current password keeps
 * working until the link is used.
 */
export async function adminCreatePasswordLink(options: { actorId: string; userId: string }): Promise<{ kind: TAccountLinkKind; link: TAccountLinkGrant }> {
  const id = z.uuid().safeParse(options.userId);
  const user = id.success ? await db().user.findUnique({ where: { id: id.data } }) : null;
  if (!user) throw new AppError("not_found", "No such user.");
  const pendingInvite = await db().accountLink.findFirst({ where: { userId: user.id, kind: "INVITE", usedAt: null } });
  const kind: TAccountLinkKind = pendingInvite && !user.lastSignInAt ? "invite" : "reset";
  return { kind, link: await createLink({ userId: user.id, createdById: options.actorId, kind }) };
}

/**
 * The operator's way in (`npm run xclaw -- create-admin <email>`, on the server, so no admin acts):
 * a new account is created as an admin with an invitation link; an existing one is made an active
 * admin and gets a one-time link to choose a password. Existing sessions and passwords stay as they are.
 */
export async function createAdminAccountLink(email: string): Promise<{ user: TPublicUser; created: boolean; kind: TAccountLinkKind; link: TAccountLinkGrant }> {
  const address = ZEmail.parse(email);
  const existing = await db().user.findUnique({ where: { email: address } });
  if (!existing) {
    const passwordHash = await hashPassword(randomBytes(32).toString("base64url"));
    const user = await db().user.create({ data: { email: address, passwordHash, role: "ADMIN" } });
    return { user: toPublicUser(user), created: true, kind: "invite", link: await createLink({ userId: user.id, createdById: null, kind: "invite" }) };
  }
  const user = await db().user.update({ where: { id: existing.id }, data: { role: "ADMIN", status: "ACTIVE" } });
  const kind: TAccountLinkKind = existing.lastSignInAt ? "reset" : "invite";
  return { user: toPublicUser(user), created: false, kind, link: await createLink({ userId: user.id, createdById: null, kind }) };
}

export type TAccountLinkView = { kind: TAccountLinkKind; email: string; name: string | null };

function usable(link: AccountLink | null): link is AccountLink {
  return link !== null && link.usedAt === null && link.expiresAt.getTime() > Date.now();
}

const LINK_NOT_USABLE = "This link is not valid any more: it was already used, it expired, or a newer one replaced it. Ask an administrator for a new link.";

/** What the set-password page shows for a link; a used, expired or unknown one is a 404. */
export async function describeAccountLink(token: string): Promise<TAccountLinkView> {
  const link = looksLikeToken(token) ? await db().accountLink.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } }) : null;
  if (!usable(link)) throw new AppError("not_found", LINK_NOT_USABLE);
  return { kind: link.kind === "INVITE" ? "invite" : "reset", email: link.user.email, name: link.user.name };
}

export const ZRedeemAccountLink = z.strictObject({
  password: z.string({ error: "Password is required." }).max(MAX_PASSWORD_LENGTH, `Password must be at most ${MAX_PASSWORD_LENGTH} characters long.`),
});

/**
 * Sets the password through a link. The password is checked before the link is spent, so a weak
 * one can be corrected; the link is then claimed in one conditional update (two tabs cannot both
 * use it), and the password change ends every session and API token of the account.
 */
export async function redeemAccountLink(options: { token: string; password: string }): Promise<{ email: string }> {
  const link = looksLikeToken(options.token) ? await db().accountLink.findUnique({ where: { tokenHash: hashToken(options.token) }, include: { user: true } }) : null;
  if (!usable(link)) throw new AppError("not_found", LINK_NOT_USABLE);
  const weakness = passwordWeakness(options.password, { minLength: getBehaviourConfig().auth.passwordMinLength, email: link.user.email });
  if (weakness) throw new AppError("bad_request", weakness);
  const passwordHash = await hashPassword(options.password);
  const now = new Date();
  await db().$transaction(async (tx) => {
    const claimed = await tx.accountLink.updateMany({ where: { id: link.id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (claimed.count !== 1) throw new AppError("not_found", LINK_NOT_USABLE);
    await tx.user.update({ where: { id: link.userId }, data: { passwordHash, sessionVersion: { increment: 1 } } });
    // A reset also voids an unused invitation (and the other way round): one way in at a time.
    await tx.accountLink.deleteMany({ where: { userId: link.userId, usedAt: null } });
  });
  forgetAuth(link.userId);
  return { email: link.user.email };
}
