import { AppError } from "@/lib/errors";
import type { TProvider } from "@/lib/providers/types";
import { getSessionOrThrow, triggerName } from "@/lib/sessions/sessions";
import type { ToolRegistry } from "@/lib/tools/registry";
import type { TMessageResult } from "./message-result";
import { markInterruptedIfStale } from "./run-lease";
import { startRun } from "./start-run";

/**
 * What every entry point a person uses passes on to the run: the person's own custom instructions
 * (Settings; added to the system prompt). Tests also inject providers and tools; the app uses the
 * configured ones.
 */
export type TStartOverrides = { providers?: TProvider[]; tools?: ToolRegistry; instructions?: string | null };

/** Continues a run a crash interrupted, from any process (the dead owner's lease has expired). */
export async function resumeSession(options: { userId: string; sessionId: string } & TStartOverrides): Promise<TMessageResult> {
  const session = await markInterruptedIfStale(await getSessionOrThrow(options));
  if (session.status !== "FAILED" || session.statusReason !== "interrupted") {
    throw new AppError("conflict", "Only an interrupted run can be resumed. Send a new message instead.");
  }
  const run = await startRun({
    session: { id: session.id, userId: session.userId },
    input: { kind: "resume" },
    trigger: triggerName(session.trigger),
    limits: options.instructions ? { instructions: options.instructions } : undefined,
    providers: options.providers,
    tools: options.tools,
  });
  return { kind: "run", run };
}
