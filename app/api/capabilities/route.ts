import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { providerStatus } from "@/lib/providers/registry";
import { sandboxRuntime } from "@/lib/sandbox/runtime";

// What this installation can do for the chat page: model providers (never keys) and the sandbox.
export const GET = route(async (request) => {
  await requireUser(request);
  const providers = providerStatus();
  const sandbox = sandboxRuntime();
  return Response.json({
    providers,
    configured: providers.some((provider) => provider.configured),
    sandbox: { mode: sandbox.mode, shell: sandbox.sandbox !== undefined, reason: sandbox.reason ?? null },
  });
});
