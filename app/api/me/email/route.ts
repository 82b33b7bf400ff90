import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { changeEmail, ZChangeEmail } from "@/lib/users/users";

export const PATCH = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZChangeEmail);
  return Response.json(await changeEmail({ userId: user.id, email: input.email, currentPassword: input.currentPassword }));
});
