import { db } from "@/lib/db/client";
import { forgetAuth } from "./auth-cache";
import type { TSessionClaims } from "./session-token";

/**
 * "Sign out" ends one browser session for good: its id goes into `revoked_sessions`, which the
 * user lookup of every cookie-authenticated request checks in the same statement
 * (lib/auth/authenticate.ts). A row matters only until the session would have expired anyway.
 */
export async function revokeSession(claims: TSessionClaims): Promise<void> {
  forgetAuth(claims.userId);
  // Signing out of an already expired session needs no row.
  if (claims.expiresAt.getTime() <= Date.now()) return;
  await db().revokedSession.createMany({
    data: [{ sessionId: claims.sessionId, userId: claims.userId, expiresAt: claims.expiresAt }],
    skipDuplicates: true,
  });
}

/** Deletes rows of sessions that have expired by `now`; returns how many. Meant for a periodic job. */
export async function pruneRevokedSessions(options: { now?: Date } = {}): Promise<number> {
  const { count } = await db().revokedSession.deleteMany({ where: { expiresAt: { lte: options.now ?? new Date() } } });
  return count;
}
