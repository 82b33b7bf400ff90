import { AppError } from "@/lib/errors";
import { db } from "@/lib/db/client";
import type { ChatSession } from "@/lib/db/generated/client";
import { modelChoices } from "@/lib/providers/registry";
import { getSessionOrThrow } from "./sessions";

/**
 * The model picker: the owner chooses one of the offered models ("openai:gpt-4o") for this chat, or
 * null for the configured default chain. The run core reads the choice when it claims the session
 * (lib/runs/start-run.ts, lib/providers/registry.ts providersForChoice).
 */
export async function setSessionModel(options: { userId: string; sessionId: string; model: string | null }): Promise<ChatSession> {
  const session = await getSessionOrThrow(options);
  if (options.model !== null && !modelChoices().some((choice) => choice.id === options.model)) {
    throw new AppError("bad_request", `"${options.model}" is not one of the models offered here.`);
  }
  // Choosing a model is not activity: the chat keeps its place in the list.
  return db().chatSession.update({ where: { id: session.id }, data: { model: options.model, updatedAt: session.updatedAt } });
}
