import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { adminUpdateUser, ZAdminUpdateUser } from "@/lib/users/users";

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireAdmin(request);
  const change = await readJson(request, ZAdminUpdateUser);
  return Response.json({ user: await adminUpdateUser({ actorId: user.id, userId: params.id, change }) });
});
