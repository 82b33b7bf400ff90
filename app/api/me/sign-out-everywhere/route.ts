import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { signOutEverywhere } from "@/lib/users/users";

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  await signOutEverywhere({ userId: user.id });
  return Response.json({ ok: true });
});
