import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { providerStatus } from "@/lib/providers/registry";

// Which providers are in the chain and whether each has credentials; never the keys themselves.
export const GET = route(async (request) => {
  await requireUser(request);
  const providers = providerStatus();
  return Response.json({ providers, configured: providers.some((provider) => provider.configured) });
});
