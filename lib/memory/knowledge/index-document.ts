import { randomUUID } from "node:crypto";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { createLogger } from "@/lib/observability/logger";
import { forgetMemoryPresence } from "../memory-presence";
import { contentHash, EmbeddingError, embedTexts, embeddingSettings } from "../search/embeddings";
import { writeChunkEntries, type TChunkEntry } from "../search/entries";
import { ensureVectorIndex } from "../search/vector-index";
import { chunkText } from "./chunking";
import type { TDocumentKind } from "./document-types";
import { documentText } from "./document-text";

/**
 * Indexes one stored document: text (by kind) → chunks → embeddings (batched, cached, progress on
 * the document row) → one transaction that replaces the document's chunks and search rows and
 * marks it READY. A search never sees half of a document: until that transaction commits it sees
 * the previous version (or nothing). A document whose text cannot be read fails with the reason;
 * when only the embeddings fail, the chunks are stored for full-text search and memory.backfill
 * adds their vectors later.
 */
const log = createLogger("knowledge");

export type TIndexResult = { status: "ready"; chunks: number; embedded: boolean; note?: string } | { status: "failed"; error: string } | { status: "gone" };

/** The text embedded for a chunk: its headings give it context. */
export function chunkEmbeddingText(chunk: { heading: string | null; content: string }): string {
  return chunk.heading ? `${chunk.heading}\n\n${chunk.content}` : chunk.content;
}

export async function markDocumentFailed(documentId: string, error: string): Promise<void> {
  await db().knowledgeDocument.updateMany({ where: { id: documentId }, data: { status: "FAILED", error: error.slice(0, 1_000), progress: 0 } });
}

export async function indexDocument(options: {
  userId: string;
  documentId: string;
  signal?: AbortSignal;
  /** Also told to the caller (kb_index's card); the document row gets it in any case. */
  onProgress?: (fraction: number, text: string) => void;
}): Promise<TIndexResult> {
  const config = getBehaviourConfig();
  const document = await db().knowledgeDocument.findFirst({ where: { id: options.documentId, userId: options.userId }, include: { file: true } });
  if (!document || !document.file) return { status: "gone" };
  let lastWrite = 0;
  const progress = async (fraction: number, text: string, force = false) => {
    options.onProgress?.(fraction, text);
    // At most a few writes a second, however many batches there are.
    if (!force && Date.now() - lastWrite < 300) return;
    lastWrite = Date.now();
    await db().knowledgeDocument.updateMany({ where: { id: document.id }, data: { status: "INDEXING", progress: fraction } });
  };
  await progress(0.02, "reading the document", true);
  let chunks;
  try {
    const { text } = await documentText(document.kind as TDocumentKind, document.file.bytes, { maxPdfPages: config.knowledge.maxPdfPages });
    chunks = chunkText(text, { chunkTokens: config.knowledge.chunkTokens, overlapTokens: config.knowledge.chunkOverlapTokens });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await markDocumentFailed(document.id, error.message);
    return { status: "failed", error: error.message };
  }
  if (!chunks.length) {
    const error = "The document has no text to index.";
    await markDocumentFailed(document.id, error);
    return { status: "failed", error };
  }
  if (chunks.length > config.knowledge.maxChunksPerDocument) {
    const error = `The document makes ${chunks.length} chunks; at most ${config.knowledge.maxChunksPerDocument} are allowed (knowledge.maxChunksPerDocument).`;
    await markDocumentFailed(document.id, error);
    return { status: "failed", error };
  }
  await progress(0.1, `${chunks.length} chunks`, true);
  const settings = embeddingSettings(config);
  let vectors: number[][] | undefined;
  let note: string | undefined;
  if (settings) {
    try {
      vectors = await embedTexts(settings, chunks.map(chunkEmbeddingText), {
        signal: options.signal,
        onProgress: (done, total) => void progress(0.1 + 0.85 * (done / total), `embedded ${done} of ${total} chunks`).catch(() => {}),
      });
      await ensureVectorIndex("chunk_entries", settings.modelKey);
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      // Permanent problems (wrong dimensions) and outages alike: full text now, vectors later.
      note = `Indexed for full-text search only: ${error.message} Vectors are added once embeddings work again.`;
      log.warn("document indexed without vectors", { documentId: document.id, error: error.message });
    }
  }
  const rows = chunks.map((chunk) => ({ id: randomUUID(), ...chunk }));
  const entries: TChunkEntry[] = rows.map((row, index) => ({
    chunkId: row.id,
    userId: document.userId,
    knowledgeBaseId: document.knowledgeBaseId,
    documentId: document.id,
    text: chunkEmbeddingText(row),
    embedding: vectors && settings ? { modelKey: settings.modelKey, vector: vectors[index]! } : undefined,
  }));
  const committed = await db().$transaction(
    async (tx) => {
      // Deleted (or replaced by a newer upload) while we worked: nothing to write.
      const current = await tx.knowledgeDocument.findFirst({ where: { id: document.id, userId: document.userId }, select: { contentHash: true } });
      if (!current || current.contentHash !== document.contentHash) return false;
      await tx.knowledgeChunk.deleteMany({ where: { documentId: document.id } });
      for (let start = 0; start < rows.length; start += 500) {
        await tx.knowledgeChunk.createMany({
          data: rows.slice(start, start + 500).map((row) => ({
            id: row.id,
            userId: document.userId,
            knowledgeBaseId: document.knowledgeBaseId,
            documentId: document.id,
            chunkIndex: row.index,
            heading: row.heading,
            content: row.content,
            contentHash: contentHash(row.content),
          })),
        });
      }
      await writeChunkEntries(tx, entries);
      await tx.knowledgeDocument.update({
        where: { id: document.id },
        data: { status: "READY", progress: 1, chunkCount: rows.length, error: note ?? null, indexedAt: new Date() },
      });
      return true;
    },
    { timeout: 120_000, maxWait: 60_000 },
  );
  if (!committed) return { status: "gone" };
  forgetMemoryPresence(document.userId);
  return { status: "ready", chunks: rows.length, embedded: Boolean(vectors), note };
}
