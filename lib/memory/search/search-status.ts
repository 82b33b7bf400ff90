import type { TSearchStatus } from "@/lib/wire/memory";
import { embeddingSettings } from "./embeddings";
import { embeddingCoverage } from "./entries";

/** What the pages say about search for this user: full text only, or rows still waiting for vectors. */
export async function searchStatus(userId: string): Promise<TSearchStatus> {
  const settings = embeddingSettings();
  if (!settings) return { lexicalOnly: true, modelKey: null, pendingEmbeddings: 0 };
  const [memories, chunks] = await Promise.all([embeddingCoverage("memory_entries", settings.modelKey, userId), embeddingCoverage("chunk_entries", settings.modelKey, userId)]);
  return { lexicalOnly: false, modelKey: settings.modelKey, pendingEmbeddings: memories.total - memories.current + chunks.total - chunks.current };
}
