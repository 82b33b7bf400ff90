import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { searchKnowledge } from "@/lib/memory/knowledge/knowledge-search";

const ZSearch = z.object({
  query: z.string().trim().min(1, "query is required.").max(2_000),
  kb: z.string().min(1).max(100).optional(),
  doc: z.string().min(1).max(300).optional(),
  limit: z.coerce.number().int().min(1).max(50).optional(),
});

/** GET /api/knowledge/search?query=&kb=&doc=&limit= → {results, mode}. */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const url = new URL(request.url);
  const input = ZSearch.parse(Object.fromEntries([...url.searchParams.entries()].filter(([key]) => ["query", "kb", "doc", "limit"].includes(key))));
  const { results, mode } = await searchKnowledge({ userId: user.id, query: input.query, knowledgeBase: input.kb, document: input.doc, limit: input.limit ?? 10 });
  return Response.json({
    results: results.map((result) => ({
      documentId: result.documentId,
      filename: result.filename,
      knowledgeBaseId: result.knowledgeBaseId,
      chunkIndex: result.chunkIndex,
      heading: result.heading,
      content: result.content,
      score: result.score,
    })),
    mode,
  });
});
