import { requireUser } from "@/lib/auth/authenticate";
import { route } from "@/lib/http/route";
import { requireId } from "@/lib/memory/ids";
import { reindexDocument } from "@/lib/memory/knowledge/add-document";
import { toDocumentView } from "@/lib/memory/knowledge/knowledge-bases";

/** POST …/documents/:docId/reindex: indexes the stored file again, as a job (202). */
export const POST = route<{ id: string; docId: string }>(async (request, { params }) => {
  const { user } = await requireUser(request);
  const document = await reindexDocument({ userId: user.id, knowledgeBaseId: requireId(params.id, "knowledge base"), id: requireId(params.docId, "document") });
  return Response.json({ document: toDocumentView(document) }, { status: 202 });
});
