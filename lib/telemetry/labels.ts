import type { TFinishReason } from "@/lib/providers/types";

/**
 * What spans and metric labels may say about a run: names chosen by an administrator or by the
 * code (tools, providers, models, agents), never a user id or words someone typed. A tool name
 * the model made up is "other", so a model cannot grow the metrics without end.
 */
export function toolLabel(name: string, known: ReadonlySet<string> | undefined): string {
  return known?.has(name) ? name : "other";
}

/** The agent of a run: a worker's profile name (its session's run profile), else "xclaw". */
export function agentName(runProfile: unknown): string {
  if (runProfile && typeof runProfile === "object" && "agent" in runProfile) {
    const agent = (runProfile as { agent?: { name?: unknown } }).agent;
    if (typeof agent?.name === "string" && /^[\w .-]{1,64}$/.test(agent.name)) return agent.name;
  }
  return "xclaw";
}

/** The finish reason by the GenAI conventions' names. */
export function finishReasonName(reason: TFinishReason): string {
  switch (reason) {
    case "tool-calls":
      return "tool_call";
    case "stop":
    case "length":
      return reason;
    default:
      return "other";
  }
}
