import { z } from "zod";
import { requireAdmin } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { isRegistrationOpen, setRegistrationOpen } from "@/lib/settings/registration";

const ZUpdateSettings = z.strictObject({ registrationOpen: z.boolean({ error: "registrationOpen must be true or false." }) });

export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json({ registrationOpen: await isRegistrationOpen() });
});

export const PATCH = route(async (request) => {
  await requireAdmin(request);
  const input = await readJson(request, ZUpdateSettings);
  await setRegistrationOpen(input.registrationOpen);
  return Response.json({ registrationOpen: input.registrationOpen });
});
