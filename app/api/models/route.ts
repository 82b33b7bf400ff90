import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { modelChoices } from "@/lib/providers/registry";

// The models people may pick per chat (configured providers only).
export const GET = route(async (request) => {
  await requireUser(request);
  return Response.json({ models: modelChoices() });
});
