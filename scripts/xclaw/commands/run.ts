import { text as readAll } from "node:stream/consumers";
import { isAppError } from "../../../lib/errors";
import type { TApprovalView, TSessionSummary, TSessionView } from "../../../lib/wire/chat";
import { createApiClient } from "../api-client";
import { parseCommandArguments, UsageError } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { followReply } from "../follow-reply";
import { installInterrupts } from "../interrupts";
import { resolveLogin } from "../login-store";
import { createReplyPrinter, type TReplyOutcome } from "../reply-printer";
import { terminalWriter } from "../terminal-style";


type TRunStatus = "success" | "failed" | "stopped" | "needs-approval" | "error";

/** What `--json` prints: one object on stdout, whatever happened. */
type TRunReport = {
  status: TRunStatus;
  sessionId: string | null;
  /** The chat on the web: where an approval is decided, and the full trace. */
  url: string | null;
  /** The final answer (the text after the last tool call). */
  text: string;
  error?: string;
  approval?: Pick<TApprovalView, "approvalId" | "toolName" | "risk" | "preview">;
};

const EXIT_BY_STATUS: Record<TRunStatus, number> = {
  success: EXIT_CODES.success,
  failed: EXIT_CODES.failed,
  stopped: EXIT_CODES.failed,
  error: EXIT_CODES.failed,
  "needs-approval": EXIT_CODES.needsApproval,
};

/** The run's end as the server recorded it (the session's state is the source of truth, not the stream). */
function statusOf(session: TSessionSummary, outcome: TReplyOutcome | undefined): TRunStatus {
  if (session.status === "paused") return "needs-approval";
  if (session.status === "failed") return session.statusReason?.startsWith("stopped") ? "stopped" : "failed";
  // "running" after the stream ended: the stream was cut (a restart); the run is not known to be done.
  if (session.status === "running") return "error";
  return outcome?.error ? "failed" : "success";
}

/**
 * `xclaw run "<prompt>"`: one message in a new session (or --session), for scripts. Progress
 * (tool cards, notices) goes to stderr and the final answer to stdout, or with --json one report
 * object; the exit code says how it ended (exit-codes.ts). A call that needs approval is not
 * decided here: the run waits, and the report gives the web link where the owner decides it.
 */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArguments(args, { json: { type: "boolean" }, session: { type: "string" } }, { min: 1, max: 1 });
  const prompt = positionals[0] === "-" ? await readAll(process.stdin) : positionals[0]!;
  if (!prompt.trim()) throw new UsageError("The prompt is empty.");
  const client = createApiClient(await resolveLogin());
  const progress = terminalWriter(process.stderr);
  const report: TRunReport = { status: "error", sessionId: null, url: null, text: "" };
  // A failed run's error is already on stderr when the stream carried it (reply-printer.ts).
  let errorShown = false;
  const finish = (): number => {
    if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else if (report.status === "success") process.stdout.write(report.text.endsWith("\n") || !report.text ? report.text : `${report.text}\n`);
    if (report.status === "needs-approval") progress.line(`The run waits for approval of ${report.approval?.toolName ?? "a tool call"}: decide it at ${report.url}`);
    else if (report.status !== "success" && !errorShown) progress.line(progress.paint("red", `The run ${report.status === "stopped" ? "was stopped" : "failed"}${report.error ? `: ${report.error}` : "."}`));
    return EXIT_BY_STATUS[report.status];
  };
  try {
    const sessionId = values.session ?? (await client.postJson<{ session: TSessionSummary }>("/api/sessions", {})).session.id;
    report.sessionId = sessionId;
    report.url = client.link(`/chat/${sessionId}`);
    progress.line(progress.paint("dim", `Session ${report.url}`));
    installInterrupts();
    const printer = createReplyPrinter({ progress });
    const outcome = await followReply({ client, sessionId, printer, request: (signal) => client.postStream("/api/chat", { sessionId, text: prompt }, signal) });
    const { session } = await client.getJson<TSessionView>(`/api/sessions/${encodeURIComponent(sessionId)}`);
    report.status = statusOf(session, outcome);
    report.text = outcome?.answer ?? "";
    errorShown = Boolean(outcome?.error);
    if (report.status === "failed" || report.status === "stopped") report.error = outcome?.error ?? session.statusReason ?? undefined;
    if (report.status === "error") report.error = "The stream ended before the run did; follow it on the web.";
    const approval = outcome?.approval;
    if (report.status === "needs-approval" && approval) report.approval = { approvalId: approval.approvalId, toolName: approval.toolName, risk: approval.risk, preview: approval.preview };
  } catch (error) {
    // Without --json the message goes to stderr like any command's (main.ts); with it, the report says it.
    if (!values.json || !isAppError(error)) throw error;
    report.status = "error";
    report.error = error.message;
  }
  return finish();
}
