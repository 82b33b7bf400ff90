import { createHash } from "node:crypto";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { Prisma, type KnowledgeDocument } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { formatBytes } from "@/lib/http/request-body";
import { sendEvent } from "@/lib/jobs/send-event";
import { cleanFilename, detectDocument } from "./document-types";
import { pdfPageCount } from "./document-text";
import { getKnowledgeBaseOrThrow } from "./knowledge-bases";

/**
 * Adds a document (an upload, or a workspace file from kb_index) to a knowledge base. Everything
 * that can be known without reading the whole document is checked here, before anything is
 * stored, so a bad file is a clear error and never a half-indexed document: emptiness, size, the
 * type from the content (not the name), a PDF's readability and page count. The bytes are stored
 * with the document (so any app process can index them, and re-index later); the key (`doc_id`)
 * is the file name unless given. The same key with the same content is a no-op; new content under
 * an existing key replaces the document's chunks once the new version is indexed.
 */
export const INDEX_DOCUMENT_EVENT = "knowledge/document.index";

export type TAddDocumentResult = { document: KnowledgeDocument; unchanged: boolean };

export async function addDocument(options: {
  userId: string;
  knowledgeBaseId: string;
  filename: string;
  bytes: Uint8Array;
  source: "upload" | "workspace";
  key?: string;
  /** false: the caller indexes it itself (kb_index shows progress on its card). */
  queue?: boolean;
}): Promise<TAddDocumentResult> {
  const config = getBehaviourConfig().knowledge;
  const base = await getKnowledgeBaseOrThrow({ userId: options.userId, id: options.knowledgeBaseId });
  const filename = cleanFilename(options.filename);
  if (options.bytes.byteLength > config.maxFileBytes) {
    throw new AppError("payload_too_large", `"${filename}" is ${formatBytes(options.bytes.byteLength)}; the limit is ${formatBytes(config.maxFileBytes)} (knowledge.maxFileBytes).`);
  }
  const { kind } = await detectDocument(filename, options.bytes);
  const pageCount = kind === "pdf" ? await pdfPageCount(options.bytes, config.maxPdfPages) : null;
  const key = (options.key ?? filename).replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 300) || filename;
  const hash = createHash("sha256").update(options.bytes).digest("hex");
  const existing = await db().knowledgeDocument.findFirst({ where: { userId: options.userId, knowledgeBaseId: base.id, key } });
  if (existing && existing.contentHash === hash && (existing.status === "READY" || existing.status === "PENDING" || existing.status === "INDEXING")) {
    return { document: existing, unchanged: true };
  }
  if (!existing && (await db().knowledgeDocument.count({ where: { knowledgeBaseId: base.id } })) >= config.maxDocumentsPerBase) {
    throw new AppError("conflict", `"${base.name}" has ${config.maxDocumentsPerBase} documents, the most allowed (knowledge.maxDocumentsPerBase).`);
  }
  const bytes = new Uint8Array(options.bytes);
  const fields = { filename, kind, byteSize: options.bytes.byteLength, contentHash: hash, source: options.source, status: "PENDING" as const, progress: 0, error: null, pageCount };
  let document: KnowledgeDocument;
  try {
    document = await db().$transaction(async (tx) => {
      const saved = existing
        ? await tx.knowledgeDocument.update({ where: { id: existing.id }, data: fields })
        : await tx.knowledgeDocument.create({ data: { ...fields, userId: options.userId, knowledgeBaseId: base.id, key } });
      await tx.knowledgeDocumentFile.upsert({
        where: { documentId: saved.id },
        create: { documentId: saved.id, userId: options.userId, bytes },
        update: { bytes },
      });
      return saved;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("conflict", `"${key}" is being added right now; try again in a moment.`);
    throw error;
  }
  if (options.queue !== false) await queueIndexing({ userId: options.userId, documentId: document.id });
  return { document, unchanged: false };
}

export async function queueIndexing(options: { userId: string; documentId: string }): Promise<void> {
  await sendEvent({ name: INDEX_DOCUMENT_EVENT, data: { userId: options.userId, documentId: options.documentId } });
}

/** Indexes the stored file again (new chunking, a failed attempt); 202 for the caller. */
export async function reindexDocument(options: { userId: string; knowledgeBaseId: string; id: string }): Promise<KnowledgeDocument> {
  const { count } = await db().knowledgeDocument.updateMany({
    where: { id: options.id, userId: options.userId, knowledgeBaseId: options.knowledgeBaseId },
    data: { status: "PENDING", progress: 0, error: null },
  });
  if (!count) throw new AppError("not_found", "No such document.");
  await queueIndexing({ userId: options.userId, documentId: options.id });
  return db().knowledgeDocument.findFirstOrThrow({ where: { id: options.id, userId: options.userId } });
}
