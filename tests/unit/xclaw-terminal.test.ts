import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toUiChunks, uiStreamResponse } from "@/lib/channels/web/ui-stream";
import type { TRunEvent } from "@/lib/runs/run-types";
import type { TApprovalView } from "@/lib/wire/chat";
import { approvalQuestion, parseApprovalAnswer } from "@/scripts/xclaw/approval-view";
import { readChatStream } from "@/scripts/xclaw/chat-stream";
import { openLineInput } from "@/scripts/xclaw/line-input";
import { loginFile, readStoredLogin, resolveLogin, serverOrigin, storeLogin } from "@/scripts/xclaw/login-store";
import { createReplyPrinter } from "@/scripts/xclaw/reply-printer";
import { terminalWriter } from "@/scripts/xclaw/terminal-style";

/**
 * The terminal client's parts without a server: the reply printer fed the bytes the server's own
 * stream encoder writes (lib/channels/web/ui-stream.ts), the approval answers, the login file and
 * which login wins, and answers read from a pipe. tests/e2e/terminal-client.spec.ts runs the
 * client against a real app.
 */
function capture() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return { writer: terminalWriter(stream), text: () => text };
}

async function replay(events: TRunEvent[], streamText: boolean) {
  async function* source() {
    yield* events;
  }
  const out = capture();
  const printer = createReplyPrinter({ text: streamText ? out.writer : undefined, progress: out.writer });
  for await (const chunk of readChatStream(uiStreamResponse(toUiChunks(source())))) printer.handle(chunk);
  return { outcome: printer.outcome(), printed: out.text() };
}

const writeCall = { id: "call_1", name: "write_file", arguments: { path: "plan.md", content: "# Plan\n- ship it\n" } };

describe("the reply printer on the server's stream", () => {
  it("streams text, shows a tool card's call and result, and keeps the text after the last call as the answer", async () => {
    const { outcome, printed } = await replay(
      [
        { type: "text-delta", text: "Let me " },
        { type: "text-delta", text: "work it out." },
        { type: "tool-start", stepId: "a", stepKey: "s0003", call: { id: "call_1", name: "calculator", arguments: { expression: "6 * 7" } } },
        { type: "tool-end", stepId: "a", stepKey: "s0003", callId: "call_1", content: [{ type: "text", text: "6 * 7 = 42" }], isError: false, durationMs: 4 },
        { type: "text-delta", text: "The answer " },
        { type: "text-delta", text: "is 42." },
      ],
      true,
    );
    expect(printed).toBe('Let me work it out.\n  ⚙ calculator expression="6 * 7"\n  ✓ calculator · s0003 · 4 ms: 6 * 7 = 42\nThe answer is 42.\n');
    expect(outcome).toMatchObject({ text: "Let me work it out.The answer is 42.", answer: "The answer is 42." });
    expect(outcome.approval).toBeUndefined();
  });

  it("drops text a failed provider attempt produced from the answer", async () => {
    const { outcome, printed } = await replay([{ type: "text-delta", text: "half an ans" }, { type: "text-discard" }, { type: "text-delta", text: "A whole answer." }], false);
    expect(outcome.answer).toBe("A whole answer.");
    // Without streamed text (xclaw run) nothing of the reply's text is printed as progress.
    expect(printed).toBe("");
  });

  it("shows an approval with the web card's preview and returns it as pending", async () => {
    const preview = { title: "Write plan.md", path: "plan.md", diff: "--- a/plan.md\n+++ b/plan.md\n@@ -0,0 +1,2 @@\n+# Plan\n+- ship it\n", detail: "2 lines", origin: "https://shop.example" };
    const { outcome, printed } = await replay(
      [
        { type: "tool-start", stepId: "b", stepKey: "s0004", call: writeCall },
        { type: "approval-request", approvalId: "ap-1", stepKey: "s0004", call: writeCall, risk: "write", preview, expiresAt: "2030-01-01T00:00:00.000Z" },
        { type: "run-end", outcome: { status: "paused", approvalId: "ap-1" } },
      ],
      true,
    );
    expect(printed.split("\n")).toEqual([
      '  ⚙ write_file path="plan.md" content="# Plan\\n- ship it\\n"',
      "  ⏸ write_file waits for your approval",
      "  ┃ Write plan.md",
      "  ┃ write_file · risk: write",
      "  ┃ Sends data to https://shop.example, a site this chat does not allow yet.",
      "  ┃ File: plan.md",
      "  ┃ --- a/plan.md",
      "  ┃ +++ b/plan.md",
      "  ┃ @@ -0,0 +1,2 @@",
      "  ┃ +# Plan",
      "  ┃ +- ship it",
      "  ┃ 2 lines",
      "",
    ]);
    expect(outcome.approval).toMatchObject({ approvalId: "ap-1", toolName: "write_file", status: "pending" });
  });

  it("reports a failed run's error", async () => {
    const { outcome, printed } = await replay([{ type: "run-end", outcome: { status: "failed", error: "openai (gpt) failed: 400 bad" } }], true);
    expect(outcome.error).toBe("openai (gpt) failed: 400 bad");
    expect(printed).toContain("The run failed: openai (gpt) failed: 400 bad");
  });
});

describe("approval answers", () => {
  const approval = (origin?: string): TApprovalView => ({
    approvalId: "a",
    toolCallId: "c",
    toolName: "browser_type",
    risk: "external",
    preview: { title: "Type", ...(origin ? { origin } : {}) },
    status: "pending",
    reason: null,
    expiresAt: "2030-01-01T00:00:00.000Z",
  });

  it("takes yes, no and always; the site choice only when the call names a new site", () => {
    expect(parseApprovalAnswer(" Y ", approval())).toEqual({ decision: "approve" });
    expect(parseApprovalAnswer("deny", approval())).toEqual({ decision: "deny" });
    expect(parseApprovalAnswer("a", approval())).toEqual({ decision: "approve", alwaysAllow: true });
    expect(parseApprovalAnswer("s", approval())).toBeUndefined();
    expect(parseApprovalAnswer("s", approval("https://shop.example"))).toEqual({ decision: "approve", alwaysAllowSite: true });
    expect(parseApprovalAnswer("maybe", approval())).toBeUndefined();
    expect(approvalQuestion(approval("https://shop.example"))).toContain("always allow shop.example in this chat");
    expect(approvalQuestion(approval())).not.toContain("[s]ite");
  });
});

describe("the stored login", () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "xclaw-login-"));
    env = { ...process.env, HOME: home, XDG_CONFIG_HOME: undefined, XCLAW_URL: undefined, XCLAW_TOKEN: undefined };
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it("lives in $XDG_CONFIG_HOME/xclaw, else ~/.config/xclaw", () => {
    expect(loginFile(env)).toBe(path.join(home, ".config", "xclaw", "config.json"));
    expect(loginFile({ ...env, XDG_CONFIG_HOME: "/elsewhere" })).toBe("/elsewhere/xclaw/config.json");
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(loginFile({ ...env, XDG_CONFIG_HOME: "relative" })).toBe(path.join(home, ".config", "xclaw", "config.json"));
  });

  it("is written 0600 in a 0700 directory, also over a file and directory that were more open", async () => {
    const directory = path.join(home, ".config", "xclaw");
    await mkdir(directory, { recursive: true, mode: 0o755 });
    await chmod(directory, 0o755);
    await writeFile(path.join(directory, "config.json"), "{}", { mode: 0o644 });
    const file = await storeLogin({ url: "https://xclaw.example", token: "xclaw_secret" }, env);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ url: "https://xclaw.example", token: "xclaw_secret" });
    expect(await readStoredLogin(env)).toEqual({ url: "https://xclaw.example", token: "xclaw_secret" });
  });

  it("is overridden by XCLAW_URL and XCLAW_TOKEN, and never sends the stored token to another server", async () => {
    await expect(resolveLogin(env)).rejects.toThrow(/Not logged in/);
    await storeLogin({ url: "https://stored.example", token: "xclaw_stored" }, env);
    expect(await resolveLogin(env)).toEqual({ url: "https://stored.example", token: "xclaw_stored" });
    expect(await resolveLogin({ ...env, XCLAW_URL: "https://ci.example/", XCLAW_TOKEN: "xclaw_ci" })).toEqual({ url: "https://ci.example", token: "xclaw_ci" });
    expect(await resolveLogin({ ...env, XCLAW_TOKEN: "xclaw_ci" })).toEqual({ url: "https://stored.example", token: "xclaw_ci" });
    expect(await resolveLogin({ ...env, XCLAW_URL: "https://stored.example" })).toEqual({ url: "https://stored.example", token: "xclaw_stored" });
    await expect(resolveLogin({ ...env, XCLAW_URL: "https://other.example" })).rejects.toThrow(/not sent anywhere else/);
  });

  it("takes a server's address with its scheme and keeps only the origin", () => {
    expect(serverOrigin("https://xclaw.example.com/chat/123?x=1")).toBe("https://xclaw.example.com");
    expect(serverOrigin(" http://127.0.0.1:3000/ ")).toBe("http://127.0.0.1:3000");
    expect(() => serverOrigin("xclaw.example.com")).toThrow(/http:\/\/ or https:\/\//);
  });
});

describe("answers from a pipe", () => {
  it("keeps lines that arrive before they are asked for, and reports the end of the input", async () => {
    const input = new PassThrough() as unknown as NodeJS.ReadStream;
    const output = new PassThrough() as unknown as NodeJS.WriteStream;
    const lines = openLineInput(input, output);
    (input as unknown as PassThrough).write("first\nsecond\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(await lines.ask("? ")).toBe("first");
    expect(await lines.ask("? ")).toBe("second");
    const third = lines.ask("? ");
    (input as unknown as PassThrough).end("third\n");
    expect(await third).toBe("third");
    expect(await lines.ask("? ")).toBeUndefined();
    lines.close();
  });
});
