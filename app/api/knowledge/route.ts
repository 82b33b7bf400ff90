import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { createKnowledgeBase, listKnowledgeBases } from "@/lib/memory/knowledge/knowledge-bases";
import { searchStatus } from "@/lib/memory/search/search-status";

const ZCreateKnowledgeBase = z.strictObject({ name: z.string().min(1).max(500) });

export const GET = route(async (request) => {
  const { user } = await requireUser(request);
  const [knowledgeBases, search] = await Promise.all([listKnowledgeBases({ userId: user.id }), searchStatus(user.id)]);
  return Response.json({ knowledgeBases, search });
});

export const POST = route(async (request) => {
  const { user } = await requireUser(request);
  const input = await readJson(request, ZCreateKnowledgeBase);
  const base = await createKnowledgeBase({ userId: user.id, name: input.name });
  return Response.json({ knowledgeBase: { id: base.id, name: base.name } }, { status: 201 });
});
