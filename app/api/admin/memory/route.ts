import { requireAdmin } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { embeddingAdminStatus } from "@/lib/memory/search/embedding-admin";

/** GET /api/admin/memory: embedding provider, vector coverage of memories and chunks, last re-embed run. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return Response.json(await embeddingAdminStatus());
});
