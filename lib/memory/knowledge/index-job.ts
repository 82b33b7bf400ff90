import { z } from "zod";
import { defineJob } from "@/lib/jobs/define-job";
import { INDEX_DOCUMENT_EVENT } from "./add-document";
import { indexDocument, markDocumentFailed } from "./index-document";

/**
 * knowledge.index: indexes an uploaded (or re-indexed) document. One run per document at a time; a
 * newer upload of the same document cancels the running one. Failures that another attempt could
 * fix (the database, the embeddings API after its own retries) are retried; on the last attempt
 * the document is marked failed with the reason, so the page never shows "indexing" forever.
 */
const RETRIES = 2;

export const indexDocumentJob = defineJob(
  {
    id: "knowledge.index",
    trigger: { event: INDEX_DOCUMENT_EVENT },
    schema: z.object({ userId: z.uuid(), documentId: z.uuid() }),
    singleton: { key: "event.data.documentId", mode: "cancel" },
    concurrency: { key: "event.data.userId", limit: 2 },
    retries: RETRIES,
  },
  async ({ event, step, signal, attempt }) =>
    step.run("index", async () => {
      try {
        return await indexDocument({ userId: event.data.userId, documentId: event.data.documentId, signal });
      } catch (error) {
        if (attempt >= RETRIES && !signal.aborted) await markDocumentFailed(event.data.documentId, `Indexing failed: ${(error as Error).message}`);
        throw error;
      }
    }),
);
