import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { changePassword, ZChangePassword } from "@/lib/users/users";

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChangePassword);
  await changePassword({ userId: user.id, ...input });
  return Response.json({ ok: true, signedOut: true });
});
