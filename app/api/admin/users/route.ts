import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { adminCreateUser, ZAdminCreateUser } from "@/lib/users/account-links";
import { listUsersForAdmin } from "@/lib/users/users";

export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ users: await listUsersForAdmin() });
});

// Adds a person; the answer carries their one-time invitation link (shown to the admin once).
export const POST = route(async (request) => {
  const { user } = await requireAdmin(request);
  const input = await readJson(request, ZAdminCreateUser);
  return Response.json(await adminCreateUser({ actorId: user.id, input }), { status: 201 });
});
