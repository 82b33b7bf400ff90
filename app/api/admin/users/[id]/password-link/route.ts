import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { adminCreatePasswordLink } from "@/lib/users/account-links";

// A new one-time link for the person to choose a password (an invitation again, or a reset).
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireAdmin(request);
  return Response.json(await adminCreatePasswordLink({ actorId: user.id, userId: params.id }), { status: 201 });
});
