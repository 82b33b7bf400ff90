import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { getMemorySettings, setMemorySettings } from "@/lib/memory/memories/memory-settings";

const ZMemorySettings = z.strictObject({ autoExtract: z.boolean() });

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ settings: await getMemorySettings(user.id) });
});

export const PATCH = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZMemorySettings);
  return Response.json({ settings: await setMemorySettings(user.id, input) });
});
