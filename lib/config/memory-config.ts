import { z } from "zod";

/** xclaw.yaml `embeddings:`, `memory:` and `knowledge:` (lib/memory), parts of ZBehaviourConfig (behaviour.ts). */
export const ZEmbeddingsConfig = z
  .strictObject({
    /**
     * auto: vectors from an OpenAI-compatible embeddings API when EMBEDDINGS_BASE_URL or
     * EMBEDDINGS_API_KEY (else OPENAI_BASE_URL or OPENAI_API_KEY) is set; off: full-text search only.
     */
    mode: z.enum(["auto", "off"]).default("auto"),
    /** EMBEDDINGS_MODEL overrides it. Changing model or dimensions needs a re-embed (Admin → Memory). */
    model: z.string().min(1).max(200).default("text-embedding-3-small"),
    /** Vector size the model returns; HNSW indexes hold at most 2,000 dimensions. */
    dimensions: z.int().min(2).max(2_000).default(1_536),
    /** Texts per embeddings request. */
    batchSize: z.int().min(1).max(2_048).default(64),
    /** Requests in flight at once per indexing job. */
    concurrency: z.int().min(1).max(16).default(2),
    /** Longer texts are cut before embedding (most models take about 8,000 tokens). */
    maxInputCharacters: z.int().min(100).max(100_000).default(8_000),
    /** A request that has not answered after this long fails (and is retried). */
    timeoutSeconds: z.number().min(1).max(600).default(30),
    /** Send `dimensions` with each request (text-embedding-3 models shorten their vectors to it); turn
     *  off for servers that refuse the parameter, whose models then must return that size anyway. */
    sendDimensions: z.boolean().default(true),
    /** Cached embeddings older than this are deleted by memory.prune. */
    cacheDays: z.int().min(1).max(3_650).default(30),
  })
  .prefault({});

export const ZMemoryConfig = z
  .strictObject({
    recall: z
      .strictObject({
        /** Memories and knowledge chunks added to each turn; 0 turns that part of recall off. */
        memories: z.int().min(0).max(50).default(5),
        chunks: z.int().min(0).max(50).default(4),
        /** Vector matches below this cosine similarity are not recalled (full-text matches are). */
        minSimilarity: z.number().min(-1).max(1).default(0.3),
        /** The recalled block is cut at this many characters. */
        maxCharacters: z.int().min(200).max(100_000).default(6_000),
      })
      .prefault({}),
    /** A new memory this similar (cosine) to an existing one is reported as a duplicate. */
    duplicateSimilarity: z.number().min(0).max(1).default(0.95),
    maxCharacters: z.int().min(20).max(20_000).default(2_000),
    maxPerUser: z.int().min(1).max(1_000_000).default(10_000),
    /** HNSW candidate list per vector query (pgvector's hnsw.ef_search): larger = better recall, slower. */
    efSearch: z.int().min(10).max(1_000).default(100),
    extraction: z
      .strictObject({
        /** The extraction job; users can also turn it off for themselves (Settings → Memory). */
        enabled: z.boolean().default(true),
        /** A conversation counts as quiet after this long without a new message. */
        quietMinutes: z.number().min(0).max(1_440).default(10),
        /** New user text shorter than this is not worth an extraction. */
        minCharacters: z.int().min(0).max(100_000).default(200),
        /** The most user text one extraction sends to the model (the newest turns are kept). */
        maxInputCharacters: z.int().min(500).max(200_000).default(12_000),
        maxFacts: z.int().min(1).max(50).default(10),
        /** Facts shorter than this are dropped. */
        minFactCharacters: z.int().min(1).max(1_000).default(15),
        /** Extractions per user per UTC day. */
        dailyLimit: z.int().min(0).max(10_000).default(20),
      })
      .prefault({}),
  })
  .prefault({});

export const ZKnowledgeConfig = z
  .strictObject({
    /** Largest upload (and kb_index file) accepted; uploads are counted while they are read. */
    maxFileBytes: z.int().min(1_024).max(512 * 1024 * 1024).default(20 * 1024 * 1024),
    maxPdfPages: z.int().min(1).max(100_000).default(500),
    /** Chunk size and the overlap between neighbouring chunks, in estimated tokens. */
    chunkTokens: z.int().min(50).max(8_000).default(400),
    chunkOverlapTokens: z.int().min(0).max(2_000).default(60),
    maxChunksPerDocument: z.int().min(1).max(1_000_000).default(5_000),
    maxDocumentsPerBase: z.int().min(1).max(1_000_000).default(1_000),
  })
  .prefault({})
  .refine((knowledge) => knowledge.chunkOverlapTokens < knowledge.chunkTokens / 2, { message: "knowledge.chunkOverlapTokens must be less than half of knowledge.chunkTokens" });
