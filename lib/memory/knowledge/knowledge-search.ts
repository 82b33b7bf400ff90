import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { TKnowledgeSearchResult } from "@/lib/wire/memory";
import { embeddingSettings } from "../search/embeddings";
import { hybridSearch, type TSearchMode } from "../search/hybrid-search";

/**
 * Hybrid search over a user's knowledge-base chunks, optionally limited to one knowledge base and
 * one document (by id or by its key, the `doc_id` of kb_index). Results name the document and
 * chunk, so answers can cite them.
 */
export type TKnowledgeHit = TKnowledgeSearchResult & { similarity?: number; textRank?: number; documentKey: string };

/** A knowledge base by id or by name, of this user only. */
export async function resolveKnowledgeBase(userId: string, idOrName: string) {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrName);
  const base = await db().knowledgeBase.findFirst({ where: { userId, ...(uuid ? { id: idOrName } : { name: idOrName }) } });
  if (!base) throw new AppError("not_found", `No knowledge base "${idOrName}".`);
  return base;
}

export async function searchKnowledge(options: {
  userId: string;
  query: string;
  limit?: number;
  knowledgeBase?: string;
  document?: string;
  embedAttempts?: number;
  signal?: AbortSignal;
}): Promise<{ results: TKnowledgeHit[]; mode: TSearchMode }> {
  const limit = options.limit ?? 5;
  const base = options.knowledgeBase ? await resolveKnowledgeBase(options.userId, options.knowledgeBase) : undefined;
  let documentIds: string[] | undefined;
  if (options.document) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(options.document);
    const documents = await db().knowledgeDocument.findMany({
      where: { userId: options.userId, ...(base ? { knowledgeBaseId: base.id } : {}), OR: [...(uuid ? [{ id: options.document }] : []), { key: options.document }] },
      select: { id: true },
    });
    if (!documents.length) throw new AppError("not_found", `No document "${options.document}"${base ? ` in ${base.name}` : ""}.`);
    documentIds = documents.map((document) => document.id);
  }
  const { hits, mode } = await hybridSearch({
    table: "chunk_entries",
    filter: { userId: options.userId, knowledgeBaseIds: base ? [base.id] : undefined, documentIds },
    query: options.query,
    limit,
    embeddings: embeddingSettings(),
    embedAttempts: options.embedAttempts,
    signal: options.signal,
  });
  if (!hits.length) return { results: [], mode };
  const chunks = await db().knowledgeChunk.findMany({
    where: { userId: options.userId, id: { in: hits.map((hit) => hit.id) } },
    include: { document: { select: { filename: true, key: true } } },
  });
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  return {
    mode,
    results: hits.flatMap((hit) => {
      const chunk = byId.get(hit.id);
      if (!chunk) return [];
      return [
        {
          documentId: chunk.documentId,
          filename: chunk.document.filename,
          documentKey: chunk.document.key,
          knowledgeBaseId: chunk.knowledgeBaseId,
          chunkIndex: chunk.chunkIndex,
          heading: chunk.heading,
          content: chunk.content,
          score: hit.score,
          similarity: hit.similarity,
          textRank: hit.textRank,
        },
      ];
    }),
  };
}
