import { createApiToken, listApiTokens, ZCreateApiToken } from "@/lib/auth/api-tokens";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ tokens: await listApiTokens({ userId: user.id }) });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateApiToken);
  const created = await createApiToken({ userId: user.id, name: input.name });
  return Response.json(created, { status: 201, headers: { "cache-control": "no-store" } });
});
