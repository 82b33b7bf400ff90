import type { TBehaviourConfig } from "@/lib/config/behaviour";
import type { TTool } from "@/lib/tools/registry";
import { knowledgeTools } from "./knowledge/knowledge-tools";
import { noteConversationActivity } from "./memories/extraction-trigger";
import { getRecentMemorySettings } from "./memories/memory-settings";
import { memoryTools } from "./memories/memory-tools";
import { createRecallHook } from "./recall";

/**
 * The memory capability for lib/capabilities: the memory and knowledge-base tools, recall before
 * every model call, and, once a run of a conversation with a person has ended, the signal that
 * schedules extraction. The same tool objects for every run (their JSON Schemas are cached per object).
 */
const tools: readonly TTool[] = [...memoryTools, ...knowledgeTools];

/** Extraction learns from people's own words: web chats and channel conversations, not jobs or workers. */
const CONVERSATION_TRIGGERS = new Set(["WEB", "CHANNEL"]);

/** lib/capabilities' run-ended context, as much of it as this needs (memory sits below capabilities). */
type TRunEnded = { userId: string; sessionId: string; sessionTrigger?: string; config: TBehaviourConfig };

async function scheduleExtraction(context: TRunEnded) {
  const { extraction } = context.config.memory;
  if (!extraction.enabled || !context.sessionTrigger || !CONVERSATION_TRIGGERS.has(context.sessionTrigger)) return;
  if (!(await getRecentMemorySettings(context.userId)).autoExtract) return;
  await noteConversationActivity({ userId: context.userId, sessionId: context.sessionId }, extraction.quietMinutes * 60_000);
}

export function memoryCapability() {
  return {
    id: "memory",
    tools: () => tools,
    prepareStep: (context: { userId: string; sessionId: string; config: TBehaviourConfig }) =>
      context.sessionId ? createRecallHook({ userId: context.userId, sessionId: context.sessionId, config: context.config }) : undefined,
    runEnded: scheduleExtraction,
  };
}
