import { isAppError } from "../../../lib/errors";
import type { TApprovalView, TSessionSummary, TSessionView } from "../../../lib/wire/chat";
import { createApiClient, type TApiClient } from "../api-client";
import { approvalLines, askApproval } from "../approval-view";
import { parseCommandArguments } from "../command-arguments";
import { EXIT_CODES } from "../exit-codes";
import { followReply } from "../follow-reply";
import { dispatchInterrupt, exitInterrupted, installInterrupts, whileInterruptible } from "../interrupts";
import { openLineInput, type TLineInput } from "../line-input";
import { resolveLogin } from "../login-store";
import { createReplyPrinter, type TReplyOutcome } from "../reply-printer";
import { terminalWriter, type TTerminalWriter } from "../terminal-style";


/** The approval a stored session still waits for (the newest data-approval part, if pending). */
function pendingApprovalOf(view: TSessionView): TApprovalView | undefined {
  for (const message of [...view.messages].reverse()) {
    for (const part of [...message.parts].reverse()) {
      if (part.type === "data-approval") return part.data.status === "pending" ? part.data : undefined;
    }
  }
  return undefined;
}

/**
 * `xclaw chat`: a conversation in the terminal, in a new session or (--session) an existing one.
 * Each line is a message (POST /api/chat, as the web sends it; slash commands work as there);
 * the reply streams; a call that needs approval is shown with its preview and decided here, and
 * the decision goes where the web card sends it (POST /api/sessions/:id/approvals/:approvalId),
 * whose answer streams the rest. Ctrl-C stops the reply (follow-reply.ts); with nothing to stop it
 * quits, as does the end of the input (Ctrl-D).
 */
class ChatLoop {
  private readonly knownCalls = new Set<string>();

  constructor(
    private readonly client: TApiClient,
    private readonly input: TLineInput,
    private readonly out: TTerminalWriter,
    private sessionId: string,
  ) {}

  private follow(request: (signal: AbortSignal) => Promise<Response | undefined>): Promise<TReplyOutcome | undefined> {
    const printer = createReplyPrinter({ text: this.out, progress: this.out, knownCalls: this.knownCalls });
    return followReply({ client: this.client, sessionId: this.sessionId, printer, request });
  }

  private link(): string {
    return this.client.link(`/chat/${this.sessionId}`);
  }

  announce(session: TSessionSummary) {
    const { paint } = this.out;
    this.out.line(paint("bold", session.title || "New chat") + paint("dim", ` · ${session.status} · ${this.link()}`));
    this.out.line(paint("dim", "Type a message (/help lists the commands). Ctrl-C stops a reply; Ctrl-C again or Ctrl-D quits."));
  }

  /** Asks about each approval the reply waits for and follows what the decision continues. False: the input ended first. */
  async settle(outcome: TReplyOutcome | undefined, waiting?: TApprovalView): Promise<boolean> {
    let approval = waiting ?? outcome?.approval;
    if (outcome?.action?.action === "open") {
      this.sessionId = outcome.action.sessionId;
      this.out.line(this.out.paint("dim", `Now in session ${this.link()}`));
    }
    while (approval?.status === "pending") {
      const current = approval;
      const leave = () => {
        this.out.line(`The call still waits for approval: ${this.link()}`);
        exitInterrupted();
      };
      const decision = await whileInterruptible(leave, () => askApproval(this.input, current, this.out));
      if (!decision) {
        this.out.line(`The call still waits for approval: ${this.link()}`);
        return false;
      }
      const path = `/api/sessions/${encodeURIComponent(this.sessionId)}/approvals/${encodeURIComponent(current.approvalId)}`;
      approval = (await this.follow((signal) => this.client.postStream(path, decision, signal)))?.approval;
    }
    return true;
  }

  async resume(view: TSessionView): Promise<boolean> {
    if (view.session.live) {
      this.out.line(this.out.paint("dim", "A reply is on its way; following it."));
      return this.settle(await this.follow((signal) => this.client.getStream(`/api/chat/${encodeURIComponent(this.sessionId)}/stream`, signal)));
    }
    const approval = pendingApprovalOf(view);
    if (approval) {
      // Shown as the reply that asked for it showed it (reply-printer.ts).
      this.out.line(`  ${this.out.paint("yellow", "⏸")} ${this.out.paint("bold", approval.toolName)} waits for your approval`);
      for (const line of approvalLines(approval, this.out.paint)) this.out.line(line);
    }
    return this.settle(undefined, approval);
  }

  async converse(): Promise<void> {
    for (;;) {
      this.out.endLine();
      const text = await this.input.ask(this.out.paint("bold", "you> "));
      if (text === undefined) return;
      if (!text.trim()) continue;
      try {
        const outcome = await this.follow((signal) => this.client.postStream("/api/chat", { sessionId: this.sessionId, text }, signal));
        if (!(await this.settle(outcome))) return;
      } catch (error) {
        // A refused message (no model on the server, the session busy elsewhere …) is said, and the
        // next line can try again; a refused token would refuse every line, so it ends the chat.
        if (!isAppError(error) || error.code === "unauthorized") throw error;
        this.out.line(this.out.paint("red", error.message));
      }
    }
  }
}

export async function chat(args: string[]): Promise<number> {
  const { values } = parseCommandArguments(args, { session: { type: "string" } }, { min: 0, max: 0 });
  const client = createApiClient(await resolveLogin());
  const out = terminalWriter(process.stdout);
  let view: TSessionView | undefined;
  let session: TSessionSummary;
  if (values.session) {
    view = await client.getJson<TSessionView>(`/api/sessions/${encodeURIComponent(values.session)}`);
    session = view.session;
  } else {
    // Like the web's "New chat": the newest still-empty chat is reused rather than another added.
    session = (await client.postJson<{ session: TSessionSummary }>("/api/sessions", { reuseEmpty: true })).session;
  }
  installInterrupts();
  const input = openLineInput();
  input.onInterrupt(dispatchInterrupt);
  const loop = new ChatLoop(client, input, out, session.id);
  try {
    loop.announce(session);
    if (!view || (await loop.resume(view))) await loop.converse();
  } finally {
    input.close();
  }
  return EXIT_CODES.success;
}
