import { requireUser } from "@/lib/auth/authenticate";
import { deleteEndpoint, toEndpointView, updateEndpoint, ZUpdateEndpoint } from "@/lib/chronos/webhook-endpoints";
import { publicOrigin } from "@/lib/config/environment";
import { readJson, route } from "@/lib/http/route";

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZUpdateEndpoint);
  const endpoint = await updateEndpoint({ userId: user.id, endpointId: params.id, input });
  return Response.json({ endpoint: toEndpointView(endpoint, publicOrigin() ?? new URL(request.url).origin) });
});

/** Revokes the endpoint: its secret stops working at once. */
export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteEndpoint({ userId: user.id, endpointId: params.id });
  return new Response(null, { status: 204 });
});
