import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { listUsersForAdmin } from "@/lib/users/users";

export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ users: await listUsersForAdmin() });
});
