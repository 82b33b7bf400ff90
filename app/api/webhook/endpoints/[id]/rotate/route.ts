import { requireUser } from "@/lib/auth/authenticate";
import { rotateEndpointSecret, toEndpointView } from "@/lib/chronos/webhook-endpoints";
import { publicOrigin } from "@/lib/config/environment";
import { route } from "@/lib/http/route";

/** A new secret → `{id, secret, url, endpoint}`; the old secret stops working at once. */
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const { endpoint, secret } = await rotateEndpointSecret({ userId: user.id, endpointId: params.id });
  const view = toEndpointView(endpoint, publicOrigin() ?? new URL(request.url).origin);
  return Response.json({ id: endpoint.id, secret, url: view.url, endpoint: view });
});
