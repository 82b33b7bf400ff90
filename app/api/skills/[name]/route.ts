import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { deletePersonalSkill } from "@/lib/skills/personal-skills";

/** Deletes one of the caller's personal skills (another person's is a 404). */
export const DELETE = route<{ name: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deletePersonalSkill({ userId: user.id, name: params.name });
  return new Response(null, { status: 204 });
});
