import { db } from "@/lib/db/client";
import { Prisma, type KnowledgeBase, type KnowledgeDocument } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import type { TDocumentStatus, TKnowledgeBaseView, TKnowledgeDocumentView } from "@/lib/wire/memory";

/** Knowledge bases and their documents, always of one user; another user's is "not found". */
const STATUS_VIEW: Record<KnowledgeDocument["status"], TDocumentStatus> = { PENDING: "pending", INDEXING: "indexing", READY: "ready", FAILED: "failed" };

export function toDocumentView(document: KnowledgeDocument): TKnowledgeDocumentView {
  return {
    id: document.id,
    filename: document.filename,
    key: document.key,
    kind: document.kind,
    byteSize: document.byteSize,
    status: STATUS_VIEW[document.status],
    progress: document.progress,
    chunkCount: document.chunkCount,
    pageCount: document.pageCount,
    error: document.error,
    source: document.source,
    createdAt: document.createdAt.toISOString(),
    indexedAt: document.indexedAt?.toISOString() ?? null,
  };
}

function cleanName(name: string): string {
  const cleaned = name.replace(/[\u0000-\u001f\u007f]/g, "").replace(/\s+/g, " ").trim();
  if (!cleaned) throw new AppError("bad_request", "Give the knowledge base a name.");
  if (cleaned.length > 100) throw new AppError("bad_request", "A knowledge base name can be at most 100 characters.");
  return cleaned;
}

export async function createKnowledgeBase(options: { userId: string; name: string }): Promise<KnowledgeBase> {
  const name = cleanName(options.name);
  if ((await db().knowledgeBase.count({ where: { userId: options.userId } })) >= 100) throw new AppError("conflict", "You have 100 knowledge bases, the most allowed.");
  try {
    return await db().knowledgeBase.create({ data: { userId: options.userId, name } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("conflict", `You already have a knowledge base called "${name}".`);
    throw error;
  }
}

export async function getKnowledgeBaseOrThrow(options: { userId: string; id: string }): Promise<KnowledgeBase> {
  const base = await db().knowledgeBase.findFirst({ where: { id: options.id, userId: options.userId } });
  if (!base) throw new AppError("not_found", "No such knowledge base.");
  return base;
}

export async function renameKnowledgeBase(options: { userId: string; id: string; name: string }): Promise<KnowledgeBase> {
  await getKnowledgeBaseOrThrow(options);
  const name = cleanName(options.name);
  try {
    return await db().knowledgeBase.update({ where: { id: options.id }, data: { name } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new AppError("conflict", `You already have a knowledge base called "${name}".`);
    throw error;
  }
}

/** Deletes the knowledge base with its documents, chunks and vectors (foreign-key cascades). */
export async function deleteKnowledgeBase(options: { userId: string; id: string }): Promise<void> {
  const { count } = await db().knowledgeBase.deleteMany({ where: { id: options.id, userId: options.userId } });
  if (!count) throw new AppError("not_found", "No such knowledge base.");
}

export async function listKnowledgeBases(options: { userId: string }): Promise<TKnowledgeBaseView[]> {
  const bases = await db().knowledgeBase.findMany({ where: { userId: options.userId }, orderBy: { createdAt: "asc" } });
  const counts = await db().knowledgeDocument.groupBy({ by: ["knowledgeBaseId"], where: { userId: options.userId }, _count: { _all: true }, _sum: { chunkCount: true } });
  const byBase = new Map(counts.map((row) => [row.knowledgeBaseId, row]));
  return bases.map((base) => ({
    id: base.id,
    name: base.name,
    documentCount: byBase.get(base.id)?._count._all ?? 0,
    chunkCount: byBase.get(base.id)?._sum.chunkCount ?? 0,
    createdAt: base.createdAt.toISOString(),
  }));
}

/** The knowledge base kb_index uses when none is named: "Default", made on first use. */
export async function defaultKnowledgeBase(userId: string): Promise<KnowledgeBase> {
  const existing = await db().knowledgeBase.findFirst({ where: { userId, name: "Default" } });
  if (existing) return existing;
  try {
    return await db().knowledgeBase.create({ data: { userId, name: "Default" } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return db().knowledgeBase.findFirstOrThrow({ where: { userId, name: "Default" } });
    throw error;
  }
}

export async function listDocuments(options: { userId: string; knowledgeBaseId: string }): Promise<KnowledgeDocument[]> {
  await getKnowledgeBaseOrThrow({ userId: options.userId, id: options.knowledgeBaseId });
  return db().knowledgeDocument.findMany({ where: { userId: options.userId, knowledgeBaseId: options.knowledgeBaseId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
}

export async function getDocumentOrThrow(options: { userId: string; knowledgeBaseId?: string; id: string }): Promise<KnowledgeDocument> {
  const document = await db().knowledgeDocument.findFirst({
    where: { id: options.id, userId: options.userId, ...(options.knowledgeBaseId ? { knowledgeBaseId: options.knowledgeBaseId } : {}) },
  });
  if (!document) throw new AppError("not_found", "No such document.");
  return document;
}

/** Deletes a document with its file, chunks and vectors (foreign-key cascades). */
export async function deleteDocument(options: { userId: string; knowledgeBaseId: string; id: string }): Promise<void> {
  const { count } = await db().knowledgeDocument.deleteMany({ where: { id: options.id, userId: options.userId, knowledgeBaseId: options.knowledgeBaseId } });
  if (!count) throw new AppError("not_found", "No such document.");
}
