import { z } from "zod";

/**
 * xclaw.yaml `context:` (lib/context), part of ZBehaviourConfig (behaviour.ts): the layers that
 * shape what the model sees of a long conversation before each call. They change only the model's
 * view; the steps keep every result whole.
 */
export const ZContextConfig = z
  .strictObject({
    offload: z
      .strictObject({
        /** A tool result over either limit reaches the model as a pointer with its start and end. */
        enabled: z.boolean().default(true),
        thresholdTokens: z.int().min(100).max(1_000_000).default(2_000),
        thresholdBytes: z.int().min(1_024).max(100 * 1024 * 1024).default(10 * 1024),
        /** Characters of the result's start and end the model sees beside the pointer. */
        headCharacters: z.int().min(0).max(20_000).default(1_200),
        tailCharacters: z.int().min(0).max(20_000).default(600),
        /** The most one offload_recall call returns (its `limit`'s ceiling and default). */
        recallMaxCharacters: z.int().min(500).max(200_000).default(8_000),
      })
      .prefault({}),
    masking: z
      .strictObject({
        /** Older tool results become one-line placeholders once the context passes `startRatio`. */
        enabled: z.boolean().default(true),
        /** Share of the model's context window at which masking starts. */
        startRatio: z.number().min(0.1).max(1).default(0.6),
        /** Masking goes on (oldest first, screenshots before text) until the context is below this share. */
        targetRatio: z.number().min(0.05).max(1).default(0.45),
        /** The results of this many newest rounds of tool calls, and of files they touched, stay whole. */
        protectRounds: z.int().min(0).max(50).default(3),
        /** Results this small are never worth a placeholder. */
        minTokens: z.int().min(0).max(100_000).default(100),
      })
      .prefault({}),
    edits: z
      .strictObject({
        /** The context_edit tool: the model deletes an old turn, or truncates or replaces a tool result, in its own view. */
        enabled: z.boolean().default(true),
      })
      .prefault({}),
    compression: z
      .strictObject({
        /** When the context is still above `startRatio` of the window, the oldest turns become a summary (one model call). */
        enabled: z.boolean().default(true),
        startRatio: z.number().min(0.1).max(1).default(0.75),
        /** The newest turns are kept whole up to this share of the window. */
        targetRatio: z.number().min(0.05).max(1).default(0.5),
        /** A summary is reused for this many model calls of the session before a new one may be made. */
        cooldownCalls: z.int().min(0).max(1_000).default(5),
        /** The most of the old turns' transcript the summariser reads (their newest part). */
        maxTranscriptCharacters: z.int().min(1_000).max(1_000_000).default(24_000),
      })
      .prefault({}),
  })
  .prefault({});

export type TContextConfig = z.infer<typeof ZContextConfig>;
