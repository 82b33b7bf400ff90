import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { toPublicUser, updateProfile, ZUpdateProfile } from "@/lib/users/users";

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json(toPublicUser(user));
});

export const PATCH = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateProfile);
  return Response.json(await updateProfile({ userId: user.id, name: input.name, instructions: input.instructions }));
});
