import { listAgents } from "@/lib/agents/profiles";
import { AppError } from "@/lib/errors";

/**
 * The OpenAI "models" are xclaw's agents: `xclaw` is the main agent (the person's own chat, with
 * every tool), `xclaw:<name>` one agent profile the caller can use (bundled, global or their own).
 * The language model behind them is xclaw's configuration, not the client's choice.
 */
export const MAIN_MODEL = "xclaw";
const PREFIX = `${MAIN_MODEL}:`;

export type TModelChoice = { model: string; agent: string | null };

export async function resolveModel(userId: string, model: string): Promise<TModelChoice> {
  if (model === MAIN_MODEL) return { model, agent: null };
  const name = model.startsWith(PREFIX) ? model.slice(PREFIX.length) : undefined;
  const agents = name ? await listAgents(userId) : [];
  if (!name || !agents.some((agent) => agent.name === name)) {
    throw new AppError("not_found", `The model "${model}" does not exist. Use ${MAIN_MODEL}, or ${PREFIX}<agent>; GET /v1/models lists them.`);
  }
  return { model, agent: name };
}

export type TOpenAiModel = { id: string; object: "model"; created: number; owned_by: string; description: string };

export async function listModels(userId: string): Promise<{ object: "list"; data: TOpenAiModel[] }> {
  const agents = await listAgents(userId);
  return {
    object: "list",
    data: [
      { id: MAIN_MODEL, object: "model", created: 0, owned_by: "xclaw", description: "The main agent, with every tool you have." },
      ...agents.map((agent) => ({ id: `${PREFIX}${agent.name}`, object: "model" as const, created: 0, owned_by: agent.scope === "mine" ? "you" : "xclaw", description: agent.description })),
    ],
  };
}
