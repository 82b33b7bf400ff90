/**
 * Wire types of memory and the knowledge base, shared by the API and the browser (types only).
 */
export type TMemoryOrigin = "user" | "agent" | "extraction";

export type TMemoryView = {
  id: string;
  content: string;
  tags: string[];
  /** Who wrote it: the person ("you"), the agent (memory_save) or the extraction job. */
  origin: TMemoryOrigin;
  /** The chat it came from, for agent and extraction memories (null when that chat was deleted). */
  sessionId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Search results only: the fused score (higher is better). */
  score?: number;
};

export type TSearchMode = "hybrid" | "vector" | "lexical";

/** What search can do right now, for the pages' notices. */
export type TSearchStatus = {
  /** No embedding provider: full-text search only. */
  lexicalOnly: boolean;
  /** "<model>@<dimensions>" when embeddings are configured. */
  modelKey: string | null;
  /** Rows of this user not (yet) embedded with the current model; they are found by full text. */
  pendingEmbeddings: number;
};

export type TKnowledgeBaseView = { id: string; name: string; documentCount: number; chunkCount: number; createdAt: string };

export type TDocumentStatus = "pending" | "indexing" | "ready" | "failed";

export type TKnowledgeDocumentView = {
  id: string;
  filename: string;
  /** The document's `doc_id` for kb_search and kb_index. */
  key: string;
  kind: string;
  byteSize: number;
  status: TDocumentStatus;
  /** 0..1 while indexing. */
  progress: number;
  chunkCount: number;
  pageCount: number | null;
  error: string | null;
  source: string;
  createdAt: string;
  indexedAt: string | null;
};

export type TKnowledgeSearchResult = {
  documentId: string;
  filename: string;
  knowledgeBaseId: string;
  chunkIndex: number;
  heading: string | null;
  content: string;
  score: number;
};

/** Admin → Memory: the embedding provider, how many rows have vectors of it, and the re-embed job. */
export type TEmbeddingAdminStatus = {
  configured: boolean;
  model: string | null;
  dimensions: number | null;
  modelKey: string | null;
  memories: { total: number; current: number; otherModel: number; missing: number };
  chunks: { total: number; current: number; otherModel: number; missing: number };
  /** The latest re-embed or backfill run on the embedded runner (none on Inngest). */
  lastRun: { id: string; jobId: string; status: string; createdAt: string; endedAt: string | null; error: string | null } | null;
};
