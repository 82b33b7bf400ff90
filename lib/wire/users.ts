/**
 * A user as the admin users page receives it (GET /api/admin/users, the JSON of lib/users'
 * TAdminUserRow: dates as ISO strings). Types only.
 */
export type TAdminUser = {
  id: string;
  email: string;
  name: string | null;
  role: "user" | "admin";
  status: "active" | "disabled";
  createdAt: string;
  lastSignInAt: string | null;
  /** Added by an admin and has not used the invitation yet. */
  invited: boolean;
};
