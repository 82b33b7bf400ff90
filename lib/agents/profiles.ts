import { z } from "zod";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { AgentProfile } from "@/lib/db/generated/client";
import { storableText } from "@/lib/db/storable";
import { AppError } from "@/lib/errors";
import type { TAgentProfileView, TAgentSummary } from "@/lib/wire/agents";
import { BUNDLED_PROFILES, DEFAULT_WORKER_TOOLS } from "./bundled-profiles";

/**
 * Agent profiles: the bundled ones (code), global ones (admins, /admin/agents) and each user's own
 * (/agents, visible only to them). A name means one agent for a given user: their own profile, else
 * a global one, else a bundled one; new profiles may not take a bundled or global name.
 */
export const ZAgentName = z
  .string({ error: "name is required." })
  .trim()
  .regex(/^[a-z][a-z0-9_-]{1,39}$/, "Names are 2–40 lower-case letters, digits, - or _, starting with a letter.");

const ZToolName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "Tool names are snake_case.");

export const ZAgentProfileInput = z.strictObject({
  name: ZAgentName,
  description: z.string().trim().min(1, "Describe what the agent is for.").max(500, "The description is at most 500 characters."),
  systemPrompt: z.string().trim().min(1, "The system prompt cannot be empty.").max(20_000, "The system prompt is at most 20,000 characters."),
  allowedTools: z.array(ZToolName).max(64).default([]),
  model: z.string().trim().min(1).max(200).nullable().default(null),
  maxIterations: z.int().min(1).max(100).nullable().default(null),
  timeoutSeconds: z.int().min(1).max(86_400).nullable().default(null),
  mayDelegate: z.boolean().default(false),
});
export type TAgentProfileInput = z.infer<typeof ZAgentProfileInput>;
export const ZAgentProfilePatch = ZAgentProfileInput.omit({ name: true }).partial();

/** One agent as a worker run uses it: everything resolved, defaults applied. */
export type TAgentDefinition = {
  name: string;
  description: string;
  systemPrompt: string;
  allowedTools: string[];
  model: string | null;
  maxIterations: number;
  timeoutSeconds: number;
  mayDelegate: boolean;
  scope: "global" | "mine";
  bundled: boolean;
  /** The row of a global or own profile. */
  id: string | null;
};

function fromRow(row: AgentProfile): TAgentDefinition {
  const { agents } = getBehaviourConfig();
  return {
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    allowedTools: row.allowedTools.length ? row.allowedTools : DEFAULT_WORKER_TOOLS,
    model: row.model,
    maxIterations: row.maxIterations ?? agents.workerMaxIterations,
    timeoutSeconds: Math.min(row.timeoutSeconds ?? agents.workerTimeoutSeconds, agents.maxWorkerTimeoutSeconds),
    mayDelegate: row.mayDelegate,
    scope: row.userId ? "mine" : "global",
    bundled: false,
    id: row.id,
  };
}

function bundledDefinitions(): TAgentDefinition[] {
  const { agents } = getBehaviourConfig();
  return BUNDLED_PROFILES.map((profile) => ({
    ...profile,
    model: null,
    maxIterations: agents.workerMaxIterations,
    timeoutSeconds: agents.workerTimeoutSeconds,
    mayDelegate: false,
    scope: "global" as const,
    bundled: true,
    id: null,
  }));
}

/** Every agent this user can use, each name once (own profiles win over global, global over bundled). */
export async function listAgents(userId: string): Promise<TAgentDefinition[]> {
  const rows = await db().agentProfile.findMany({ where: { OR: [{ userId }, { userId: null }] }, orderBy: { name: "asc" } });
  const byName = new Map<string, TAgentDefinition>();
  for (const definition of bundledDefinitions()) byName.set(definition.name, definition);
  for (const row of rows.filter((row) => row.userId === null)) byName.set(row.name, fromRow(row));
  for (const row of rows.filter((row) => row.userId !== null)) byName.set(row.name, fromRow(row));
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export async function resolveAgent(userId: string, name: string): Promise<TAgentDefinition | undefined> {
  return (await listAgents(userId)).find((agent) => agent.name === name);
}

/** An unknown agent's error names the ones there are (the model reads it and picks again). */
export function unknownAgentMessage(name: string, available: TAgentDefinition[]): string {
  return `Unknown agent "${name}". Available agents: ${available.map((agent) => agent.name).join(", ")}.`;
}

export async function listGlobalProfiles(): Promise<AgentProfile[]> {
  return db().agentProfile.findMany({ where: { userId: null }, orderBy: { name: "asc" } });
}

export async function listOwnProfiles(userId: string): Promise<AgentProfile[]> {
  return db().agentProfile.findMany({ where: { userId }, orderBy: { name: "asc" } });
}

async function assertNameFree(name: string, owner: string | null): Promise<void> {
  if (BUNDLED_PROFILES.some((profile) => profile.name === name)) throw new AppError("conflict", `"${name}" is a bundled agent; choose another name.`);
  const taken = await db().agentProfile.findFirst({ where: { name, OR: [{ userId: null }, ...(owner ? [{ userId: owner }] : [])] } });
  if (taken) throw new AppError("conflict", taken.userId ? `You already have an agent named "${name}".` : `"${name}" is a global agent; choose another name.`);
}

function storable(input: Partial<TAgentProfileInput>) {
  return {
    ...input,
    ...(input.description === undefined ? {} : { description: storableText(input.description) }),
    ...(input.systemPrompt === undefined ? {} : { systemPrompt: storableText(input.systemPrompt) }),
  };
}

/** `owner` null: a global profile (admins only; the route checks). */
export async function createAgentProfile(options: { owner: string | null; input: TAgentProfileInput }): Promise<AgentProfile> {
  await assertNameFree(options.input.name, options.owner);
  const limit = 100;
  if ((await db().agentProfile.count({ where: { userId: options.owner } })) >= limit) {
    throw new AppError("conflict", `There are already ${limit} profiles here; delete one first.`);
  }
  try {
    const input = options.input;
    return await db().agentProfile.create({
      data: { ...input, description: storableText(input.description), systemPrompt: storableText(input.systemPrompt), userId: options.owner },
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new AppError("conflict", `An agent named "${options.input.name}" already exists.`);
    throw error;
  }
}

export async function getProfileOrThrow(options: { owner: string | null; id: string }): Promise<AgentProfile> {
  const id = z.uuid().safeParse(options.id);
  const row = id.success ? await db().agentProfile.findFirst({ where: { id: id.data, userId: options.owner } }) : null;
  if (!row) throw new AppError("not_found", "No such agent profile.");
  return row;
}

export async function updateAgentProfile(options: { owner: string | null; id: string; patch: z.infer<typeof ZAgentProfilePatch> }): Promise<AgentProfile> {
  const row = await getProfileOrThrow(options);
  return db().agentProfile.update({ where: { id: row.id }, data: storable(options.patch) });
}

export async function deleteAgentProfile(options: { owner: string | null; id: string }): Promise<void> {
  const row = await getProfileOrThrow(options);
  await db().agentProfile.delete({ where: { id: row.id } });
}

/** A profile row as the agents pages and APIs show it. */
export function toProfileView(row: AgentProfile): TAgentProfileView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    allowedTools: row.allowedTools,
    model: row.model,
    maxIterations: row.maxIterations,
    timeoutSeconds: row.timeoutSeconds,
    mayDelegate: row.mayDelegate,
    scope: row.userId ? ("mine" as const) : ("global" as const),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /api/agents: each agent the caller can use, once. */
export async function agentSummaries(userId: string): Promise<TAgentSummary[]> {
  return (await listAgents(userId)).map((agent) => ({ name: agent.name, description: agent.description, scope: agent.scope, bundled: agent.bundled, id: agent.id }));
}
