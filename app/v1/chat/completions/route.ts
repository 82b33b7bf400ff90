import { chatCompletion } from "@/lib/openai-api/chat-completions";
import { openAiRoute } from "@/lib/openai-api/openai-errors";

// Streams for as long as the run takes; the run itself survives a disconnect.
export const maxDuration = 800;

/** The OpenAI Chat Completions API over xclaw's agents (lib/openai-api). */
export const POST = openAiRoute(chatCompletion);
