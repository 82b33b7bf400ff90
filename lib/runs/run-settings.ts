import type { TCallDecision } from "@/lib/agent/agent-types";
import { decideToolCall } from "@/lib/approvals/policy";
import { runSettingsFor } from "@/lib/capabilities/installed-capabilities";
import type { TRunSettings } from "@/lib/capabilities/tool-provider";
import type { TBehaviourConfig } from "@/lib/config/behaviour";
import { providersForChoice, providersWithModel } from "@/lib/providers/registry";
import type { TProvider } from "@/lib/providers/types";
import type { TClaimed } from "./claim-for-input";
import type { TRunLimits, TStartRunOptions } from "./run-types";

/**
 * What a run works with once its session is claimed: the session's run profile applied to the
 * caller's limits, the provider chain, and the approval policy bound to the session's allowances.
 */
export type TResolvedRun = { settings: TRunSettings | undefined; limits: TRunLimits; providers: TProvider[] };

/**
 * A run's limits with the session's run profile applied (a worker's role and folders, a team
 * member's): what the caller asked for wins, except that tool lists only ever narrow.
 */
export function limitsWith(limits: TRunLimits | undefined, settings: TRunSettings | undefined): TRunLimits {
  if (!settings) return limits ?? {};
  const allowedTools = settings.allowedTools && limits?.allowedTools ? settings.allowedTools.filter((name) => limits.allowedTools!.includes(name)) : (settings.allowedTools ?? limits?.allowedTools);
  return {
    ...limits,
    maxIterations: limits?.maxIterations ?? settings.maxIterations,
    timeoutMs: limits?.timeoutMs ?? settings.timeoutMs,
    approvals: limits?.approvals ?? settings.approvals,
    allowedTools,
    instructions: [settings.instructions, limits?.instructions].filter((text) => text?.trim()).join("\n\n") || undefined,
  };
}

export async function resolveRun(options: TStartRunOptions, claim: TClaimed, providers: TProvider[]): Promise<TResolvedRun> {
  const { session, input } = options;
  // A worker's or team's session carries a run profile; ordinary chats skip this entirely.
  const settings =
    claim.runProfile === null || claim.runProfile === undefined
      ? undefined
      : await runSettingsFor({ userId: session.userId, sessionId: session.id, profile: claim.runProfile, input: { kind: input.kind, text: "text" in input ? input.text : undefined } });
  // A profile's model (a worker's) wins; otherwise the owner's model choice for this chat goes first,
  // with the rest of the chain as the fallback.
  const chain = settings?.model && !options.providers ? providersWithModel(settings.model) : providersForChoice(providers, claim.model);
  return { settings, limits: limitsWith(options.limits, settings), providers: chain };
}

/** The approval policy for this run's calls; a run with nobody to ask ("deny") refuses instead of pausing. */
export function authorizer(config: TBehaviourConfig, claim: Pick<TClaimed, "allowedTools" | "allowedOrigins">, mode: "ask" | "deny", trigger: string) {
  return (call: { name: string; arguments: unknown }, tool: Parameters<typeof decideToolCall>[0]["tool"]): TCallDecision => {
    const decision = decideToolCall({ tool, input: call.arguments, config, allowedTools: claim.allowedTools, allowedOrigins: claim.allowedOrigins });
    if (decision === "ask" && mode === "deny") {
      return { deny: `Not run: ${call.name} needs a person's approval, and this ${trigger} run has nobody to ask. Report what you would have done instead.` };
    }
    return decision;
  };
}
