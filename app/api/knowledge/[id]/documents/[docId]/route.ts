import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { requireId } from "@/lib/memory/ids";
import { deleteDocument, getDocumentOrThrow, toDocumentView } from "@/lib/memory/knowledge/knowledge-bases";

export const GET = route<{ id: string; docId: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const document = await getDocumentOrThrow({ userId: user.id, knowledgeBaseId: requireId(params.id, "knowledge base"), id: requireId(params.docId, "document") });
  return Response.json({ document: toDocumentView(document) });
});

/** Deletes the document with its file, chunks and vectors. */
export const DELETE = route<{ id: string; docId: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  await deleteDocument({ userId: user.id, knowledgeBaseId: requireId(params.id, "knowledge base"), id: requireId(params.docId, "document") });
  return new Response(null, { status: 204 });
});
