import { z } from "zod";
import { requireUser } from "@/lib/auth/authenticate";
import { readJson, route } from "@/lib/http/route";
import { requireId } from "@/lib/memory/ids";
import { deleteKnowledgeBase, getKnowledgeBaseOrThrow, renameKnowledgeBase } from "@/lib/memory/knowledge/knowledge-bases";

const ZRenameKnowledgeBase = z.strictObject({ name: z.string().min(1).max(500) });

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const base = await getKnowledgeBaseOrThrow({ userId: user.id, id: requireId(params.id, "knowledge base") });
  return Response.json({ knowledgeBase: { id: base.id, name: base.name } });
});

export const PATCH = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const id = requireId(params.id, "knowledge base");
  const input = await readJson(request, ZRenameKnowledgeBase);
  const base = await renameKnowledgeBase({ userId: user.id, id, name: input.name });
  return Response.json({ knowledgeBase: { id: base.id, name: base.name } });
});

/** Deletes the knowledge base with all its documents, chunks and vectors. */
export const DELETE = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteKnowledgeBase({ userId: user.id, id: requireId(params.id, "knowledge base") });
  return new Response(null, { status: 204 });
});
