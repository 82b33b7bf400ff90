import { db } from "@/lib/db/client";
import { decodeStep } from "@/lib/sessions/step-codecs";
import { followSessionRun } from "./follow-run";

/**
 * What a trigger that answers in text (a chat channel, the OpenAI-compatible API) sends back once a
 * run of its session is over, read from the database (so it is
 * the same whichever process ran the run, and after a restart): the model's last words after the
 * step the run started from, and how the run ended — done, waiting for an approval on the web,
 * stopped or failed.
 */
/** More than any chat takes in its replies; the answer is stored with the job's step. */
export const MAX_ANSWER_CHARACTERS = 60_000;

export type TRunAnswer =
  | { status: "completed"; text: string; stepLimit: boolean }
  | { status: "paused"; text: string; approval: { id: string; toolName: string } }
  | { status: "stopped"; text: string; reason: string }
  | { status: "failed"; text: string; reason: string }
  | { status: "running" };

/** Follows the session's live run (here or in another process) until it has ended. */
export async function waitForSessionRun(options: { userId: string; sessionId: string; signal?: AbortSignal }): Promise<void> {
  const events = await followSessionRun(options);
  if (!events) return;
  for await (const event of events) if (event.type === "run-end") return;
}

export async function readRunAnswer(options: { userId: string; sessionId: string; afterSeq: number }): Promise<TRunAnswer> {
  const session = await db().chatSession.findFirst({ where: { id: options.sessionId, userId: options.userId }, select: { status: true, statusReason: true } });
  if (!session) return { status: "failed", text: "", reason: "the conversation was deleted" };
  if (session.status === "RUNNING") return { status: "running" };
  const steps = await db().step.findMany({
    where: { sessionId: options.sessionId, userId: options.userId, type: "MODEL_CALL", seq: { gt: options.afterSeq } },
    orderBy: { seq: "desc" },
    take: 20,
  });
  let text = "";
  for (const step of steps) {
    const decoded = decodeStep(step);
    if (decoded.kind === "model" && decoded.output?.text.trim()) {
      text = decoded.output.text.trim().slice(0, MAX_ANSWER_CHARACTERS);
      break;
    }
  }
  const reason = session.statusReason ?? "";
  if (session.status === "PAUSED") {
    const approval = await db().approval.findFirst({ where: { sessionId: options.sessionId, userId: options.userId, status: "PENDING" }, orderBy: { createdAt: "desc" } });
    if (approval) return { status: "paused", text, approval: { id: approval.id, toolName: approval.toolName } };
  }
  if (session.status === "FAILED") {
    // "stopped by the user", "stopped at the time limit (300 s)", "interrupted" (end-run.ts, run-lease.ts).
    const stopped = reason.startsWith("stopped") || reason === "interrupted";
    return stopped ? { status: "stopped", text, reason } : { status: "failed", text, reason: reason || "the run failed" };
  }
  return { status: "completed", text, stepLimit: reason === "stopped at the iteration limit" };
}
