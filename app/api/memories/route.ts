import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { AppError } from "@/lib/errors";
import { readJson, route } from "@/lib/http/route";
import { deleteAllMemories, listMemories, saveMemory, searchMemories, toMemoryView } from "@/lib/memory/memories/memory-store";

const ZCreateMemory = z.strictObject({
  content: z.string().min(1).max(20_000),
  tags: z.array(z.string().max(100)).max(50).optional(),
});

const ZListQuery = z.object({
  query: z.string().max(2_000).optional(),
  limit: z.coerce.number().int().min(1).max(1_000).optional(),
});

/** GET /api/memories?query=&limit=: newest first, or the best matches for the query (with `mode`). */
export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const url = new URL(request.url);
  const input = ZListQuery.parse({ query: url.searchParams.get("query") ?? undefined, limit: url.searchParams.get("limit") ?? undefined });
  if (input.query?.trim()) {
    const { memories, mode } = await searchMemories({ userId: user.id, query: input.query, limit: input.limit ?? 20 });
    return Response.json({ memories: memories.map(({ memory, score }) => toMemoryView(memory, score)), mode });
  }
  return Response.json({ memories: (await listMemories({ userId: user.id, limit: input.limit ?? 200 })).map((memory) => toMemoryView(memory)) });
});

/** POST /api/memories {content, tags?}: 201 with the memory; 409 naming the existing one for a duplicate. */
export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateMemory);
  const result = await saveMemory({ userId: user.id, content: input.content, tags: input.tags, origin: "USER" });
  if (!result.created) {
    throw new AppError("conflict", `You already have this memory (${result.memory.id}): ${result.memory.content.slice(0, 200)}`);
  }
  return Response.json({ memory: toMemoryView(result.memory) }, { status: 201 });
});

/** DELETE /api/memories: deletes every memory of the caller. */
export const DELETE = route(async (request) => {
  const { user } = await requireUser(request);
  return Response.json({ deleted: await deleteAllMemories({ userId: user.id }) });
});
