import { requireAdmin } from "@/lib/auth/authenticate";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { embeddingSettings } from "@/lib/memory/search/embeddings";
import { requestReembed } from "@/lib/memory/search/embedding-admin";

/** POST /api/admin/memory/reembed: embeds every row that lacks a vector of the configured model (202). */
export const POST = route(async (request) => {
  await requireAdmin(request);
  if (!embeddingSettings()) throw new AppError("conflict", "No embedding provider is configured (EMBEDDINGS_BASE_URL / EMBEDDINGS_API_KEY or the OpenAI settings), so there is nothing to embed with.");
  return Response.json(await requestReembed(), { status: 202 });
});
