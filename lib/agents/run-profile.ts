import { z } from "zod";

/**
 * What a worker's or a team's session stores as its run profile (chat_sessions.runProfile). The
 * run core hands it back on every run of the session, and the agents capability turns it into the
 * run's settings (agents-capability.ts), so a worker keeps its role, tools and folders whoever
 * continues it (an approval, a resume, another process).
 */
export const WORKER_PROFILE = "agents.worker";
export const TEAM_PROFILE = "agents.team";
/** A chat with one agent profile in person (the OpenAI-compatible API's `xclaw:<agent>` model). */
export const DIRECT_PROFILE = "agents.direct";

/** The agent as it was when the task was given: later edits of the profile do not change a running worker. */
export const ZWorkerAgent = z.object({
  name: z.string(),
  systemPrompt: z.string(),
  allowedTools: z.array(z.string()),
  model: z.string().nullable(),
  maxIterations: z.int(),
  timeoutMs: z.int(),
  mayDelegate: z.boolean(),
});

export const ZWorkerProfile = z.object({
  kind: z.literal(WORKER_PROFILE),
  taskId: z.uuid(),
  agent: ZWorkerAgent,
  taskKey: z.string().regex(/^[a-z0-9]{6,16}$/),
  depth: z.int().min(1),
  approvals: z.enum(["ask", "deny"]),
});
export type TWorkerProfile = z.infer<typeof ZWorkerProfile>;

export const ZTeamRule = z.strictObject({
  member: z.string(),
  keywords: z.array(z.string().trim().min(1).max(60)).min(1).max(50),
});

export const ZTeamProfile = z.object({
  kind: z.literal(TEAM_PROFILE),
  members: z.array(z.string()).min(1).max(10),
  /** Checked in order before the built-in rules; keywords match case-insensitively. */
  rules: z.array(ZTeamRule).max(50),
  /** Ask the model to pick a member when no keyword matches. */
  modelRouter: z.boolean(),
});
export type TTeamProfile = z.infer<typeof ZTeamProfile>;

export const ZDirectProfile = z.object({
  kind: z.literal(DIRECT_PROFILE),
  /** Resolved on every run, so an edit of the profile applies to the chat's next message. */
  agent: z.string(),
});
export type TDirectProfile = z.infer<typeof ZDirectProfile>;

export function directProfileOf(profile: unknown): TDirectProfile | undefined {
  const parsed = ZDirectProfile.safeParse(profile);
  return parsed.success ? parsed.data : undefined;
}

export function workerProfileOf(profile: unknown): TWorkerProfile | undefined {
  const parsed = ZWorkerProfile.safeParse(profile);
  return parsed.success ? parsed.data : undefined;
}

export function teamProfileOf(profile: unknown): TTeamProfile | undefined {
  const parsed = ZTeamProfile.safeParse(profile);
  return parsed.success ? parsed.data : undefined;
}

/** Paths of a task's folders, relative to the owner's workspace. */
export function scratchFolder(agent: string, taskKey: string): string {
  return `agents/${agent}/${taskKey}`;
}

export function deliveryFolder(taskKey: string): string {
  return `shared/${taskKey}`;
}
