import { requireUser } from "@/lib/auth/authenticate";
import { createEndpoint, listEndpoints, toEndpointView, ZCreateEndpoint } from "@/lib/chronos/webhook-endpoints";
import { publicOrigin } from "@/lib/config/environment";
import { readJson, route } from "@/lib/http/route";

function originOf(request: Request): string {
  return publicOrigin() ?? new URL(request.url).origin;
}

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ endpoints: (await listEndpoints({ userId: user.id })).map((endpoint) => toEndpointView(endpoint, originOf(request))) });
});

/** `{name, instructions?, channels?}` → 201 `{id, secret, url, endpoint}`; the secret is shown this once. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateEndpoint);
  const { endpoint, secret } = await createEndpoint({ userId: user.id, input });
  const view = toEndpointView(endpoint, originOf(request));
  return Response.json({ id: endpoint.id, secret, url: view.url, endpoint: view }, { status: 201 });
});
