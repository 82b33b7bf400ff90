import type { Step } from "@/lib/db/generated/client";
import { db } from "@/lib/db/client";
import type { TRunSettings, TToolProvider, TToolProviderContext } from "@/lib/capabilities/tool-provider";
import { createLogger } from "@/lib/observability/logger";
import { configuredProviders, retryPolicy } from "@/lib/providers/registry";
import type { TMessage } from "@/lib/providers/types";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { agentTools, callsWithWorkers, DELEGATE_TOOLS, MAIN_AGENT_TOOLS } from "./agent-tools";
import { listAgents } from "./profiles";
import { deliveryFolder, directProfileOf, scratchFolder, teamProfileOf, workerProfileOf, type TDirectProfile, type TTeamProfile, type TWorkerProfile } from "./run-profile";
import { isTerminal } from "./task-store";
import { routeByKeywords, routeByModel, type TRouteDecision } from "./team-router";
import { workerInstructions } from "./worker-prompt";

/**
 * Multi-agent as a capability: the tools per session (the main agent's delegate family, a worker's
 * deliver), the run settings of worker and team sessions (from their stored run profile), a note
 * to the model about multi-agent calls a restart interrupted, and cleaning up a deleted chat's
 * workers. Ordinary chats pay nothing: the settings hook runs only for sessions with a profile,
 * and the resume note looks at the database only when the history holds an interrupted call.
 */
const log = createLogger("agents");

export const TEAM_ROUTE_STEP = "team-route";

function workerSettings(profile: TWorkerProfile, context: TToolProviderContext): TRunSettings {
  const { agent, taskKey } = profile;
  const canDelegate = agent.mayDelegate && profile.depth < context.config.agents.maxDepth;
  const allowedTools = [...new Set([...agent.allowedTools, ...(canDelegate ? DELEGATE_TOOLS : [])])];
  return {
    instructions: workerInstructions({ systemPrompt: agent.systemPrompt, taskKey, canDeliver: allowedTools.includes("deliver") }),
    allowedTools,
    maxIterations: agent.maxIterations,
    timeoutMs: agent.timeoutMs,
    approvals: profile.approvals,
    workspace: { root: scratchFolder(agent.name, taskKey), shared: deliveryFolder(taskKey) },
    depth: profile.depth,
    ...(agent.model ? { model: agent.model } : {}),
  };
}

/** The member of the turn an approval or a resume continues: the last routing note's. */
async function lastRoutedMember(sessionId: string): Promise<string | null> {
  const note = await db().step.findFirst({ where: { sessionId, type: "SYSTEM_NOTE", name: TEAM_ROUTE_STEP }, orderBy: { seq: "desc" }, select: { input: true } });
  const member = (note?.input as { member?: unknown } | null)?.member;
  return typeof member === "string" && member ? member : null;
}

/** A member's own conversation in a team chat: only the turns routed to it. */
export function turnsOf(member: string, steps: Step[]): Step[] {
  const turns: Step[][] = [];
  for (const step of [...steps].sort((a, b) => a.seq - b.seq)) {
    if (step.type === "USER_INPUT" || !turns.length) turns.push([]);
    turns.at(-1)!.push(step);
  }
  return turns
    .filter((turn) => {
      const note = turn.find((step) => step.type === "SYSTEM_NOTE" && step.name === TEAM_ROUTE_STEP);
      return (note?.input as { member?: unknown } | null)?.member === member;
    })
    .flat();
}

async function teamSettings(team: TTeamProfile, context: TToolProviderContext & { input: { kind: string; text?: string } }): Promise<TRunSettings> {
  const available = await listAgents(context.userId);
  const members = available.filter((agent) => team.members.includes(agent.name));
  let decision: TRouteDecision | undefined;
  const fresh = context.input.kind === "message" || context.input.kind === "prompt";
  if (fresh) {
    const text = context.input.text ?? "";
    decision = routeByKeywords(
      text,
      members.map((member) => member.name),
      team.rules,
    );
    if (decision.member === null && team.modelRouter && decision.reason === "no keyword matched") {
      try {
        decision = await routeByModel({ text, members, providers: configuredProviders(context.config), retryPolicy: retryPolicy(context.config) });
      } catch (error) {
        log.warn("the model router failed; the orchestrator answers", { error: (error as Error).message });
      }
    }
  }
  const memberName = fresh ? decision!.member : await lastRoutedMember(context.sessionId);
  const member = members.find((candidate) => candidate.name === memberName);
  const note = fresh
    ? {
        name: TEAM_ROUTE_STEP,
        text: member ? `${member.name} answers (${decision!.reason}).` : `The orchestrator answers (${decision!.reason}).`,
        data: { member: member?.name ?? "" },
      }
    : undefined;
  if (!member) return { ...(note ? { note } : {}), instructions: `You coordinate a team chat with these members: ${team.members.join(", ")}. Delegate to them when it helps.` };
  return {
    ...(note ? { note } : {}),
    instructions: `${member.systemPrompt}\n\nYou are ${member.name}, a member of the user's team chat. Answer the user directly, in natural language (no JSON), in the language they write in.`,
    allowedTools: member.allowedTools.filter((name) => name !== "deliver"),
    maxIterations: member.maxIterations,
    ...(member.model ? { model: member.model } : {}),
    keepSteps: (steps) => turnsOf(member.name, steps),
  };
}

/** A chat with one agent: its role, tools, step limit and model, as a team member answers. */
async function directSettings(direct: TDirectProfile, context: TToolProviderContext): Promise<TRunSettings | undefined> {
  const agent = (await listAgents(context.userId)).find((candidate) => candidate.name === direct.agent);
  if (!agent) {
    log.warn("the agent of a direct chat no longer exists; the main agent answers", { agent: direct.agent });
    return undefined;
  }
  return {
    instructions: `${agent.systemPrompt}\n\nYou are ${agent.name}. Answer the user directly, in natural language (no JSON), in the language they write in.`,
    allowedTools: agent.allowedTools.filter((name) => name !== "deliver"),
    maxIterations: agent.maxIterations,
    ...(agent.model ? { model: agent.model } : {}),
  };
}

const INTERRUPTED_MARK = "interrupted";

/** Tells the model which multi-agent calls a restart interrupted and how to collect them. */
function resumeNote(context: TToolProviderContext) {
  return async ({ system, messages }: { iteration: number; system: string; messages: TMessage[] }) => {
    const interrupted = messages.flatMap((message) =>
      message.role === "tool" && (DELEGATE_TOOLS as readonly string[]).includes(message.toolName) && message.isError && message.content.some((part) => part.type === "text" && part.text.includes(INTERRUPTED_MARK))
        ? [message.toolCallId]
        : [],
    );
    if (!interrupted.length) return {};
    const collected = new Set(
      messages.flatMap((message) =>
        message.role === "assistant" ? message.toolCalls.filter((call) => call.name === "agent_results").map((call) => String((call.arguments as { call_id?: unknown } | null)?.call_id ?? "")) : [],
      ),
    );
    const pending = interrupted.filter((id) => !collected.has(id));
    if (!pending.length) return {};
    const calls = (await callsWithWorkers(context.userId, context.sessionId)).filter((call) => pending.includes(call.toolCallId));
    if (!calls.length) return {};
    const lines = calls.map(
      (call) =>
        `- ${call.kind} (call_id "${call.toolCallId}"): ${call.tasks.map((task) => `${task.agent} ${isTerminal(task.status) ? task.status.toLowerCase() : "still working"}`).join(", ")}`,
    );
    return {
      system: `${system}\n\n## Workers of interrupted calls\nA restart interrupted these multi-agent calls, but their workers were not lost: finished ones keep their results and unfinished ones go on. Do not start these calls again; call agent_results with the call_id to get their results (finished workers are not re-run).\n${lines.join("\n")}`,
    };
  };
}

export const agentsCapability: TToolProvider = {
  id: "agents",
  tools: (context) => (workerProfileOf(context.runProfile) ? [agentTools.deliver, ...MAIN_AGENT_TOOLS] : MAIN_AGENT_TOOLS),
  prepareStep: (context) => resumeNote(context),
  async runSettings(context) {
    const worker = workerProfileOf(context.profile);
    if (worker) return workerSettings(worker, context);
    const team = teamProfileOf(context.profile);
    if (team) return teamSettings(team, context);
    const direct = directProfileOf(context.profile);
    if (direct) return directSettings(direct, context);
    return undefined;
  },
  /** A deleted chat takes its workers' sessions and tasks with it. */
  async releaseSession(session) {
    const tasks = await db().agentTask.findMany({ where: { userId: session.userId, parentSessionId: session.sessionId }, select: { sessionId: true } });
    const workerSessions = tasks.flatMap((task) => (task.sessionId ? [task.sessionId] : []));
    await db().agentTask.deleteMany({ where: { userId: session.userId, parentSessionId: session.sessionId } });
    if (!workerSessions.length) return;
    await db().chatSession.deleteMany({ where: { id: { in: workerSessions }, userId: session.userId, status: { not: "RUNNING" } } });
    const sandbox = sandboxRuntime().sandbox;
    await Promise.all(workerSessions.map((id) => sandbox?.releaseSession(id).catch(() => {})));
  },
};
