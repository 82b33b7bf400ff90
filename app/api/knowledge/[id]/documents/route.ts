import { requireUser } from "@/lib/auth/authenticate";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { route } from "@/lib/http/route";
import { requireId } from "@/lib/memory/ids";
import { addDocument } from "@/lib/memory/knowledge/add-document";
import { getKnowledgeBaseOrThrow, listDocuments, toDocumentView } from "@/lib/memory/knowledge/knowledge-bases";
import { readUpload } from "@/lib/memory/knowledge/read-upload";

export const GET = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const documents = await listDocuments({ userId: user.id, knowledgeBaseId: requireId(params.id, "knowledge base") });
  return Response.json({ documents: documents.map(toDocumentView) });
});

/**
 * POST /api/knowledge/:id/documents (multipart/form-data, field `file`): checks the file and
 * answers 202 at once; indexing runs as a job (GET the documents for status and progress). The same
 * file again is a no-op (200 with `unchanged: true`).
 */
export const POST = route<{ id: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const knowledgeBaseId = requireId(params.id, "knowledge base");
  // Another user's (or no) knowledge base is refused before the body is read.
  await getKnowledgeBaseOrThrow({ userId: user.id, id: knowledgeBaseId });
  const upload = await readUpload(request, getBehaviourConfig().knowledge.maxFileBytes);
  const { document, unchanged } = await addDocument({ userId: user.id, knowledgeBaseId, filename: upload.filename, bytes: upload.bytes, source: "upload" });
  return Response.json({ document: toDocumentView(document), unchanged }, { status: unchanged ? 200 : 202 });
});
