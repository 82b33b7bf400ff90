import { describe, expect, it } from "vitest";
import { filterSessions, groupSessions } from "@/components/app-shell/session-groups";
import { buildToolIndex, groupReplies, hiddenParts, pendingApproval, readApprovalPreview, readToolOutput, replyText } from "@/components/chat/message-model";
import { groupStepsByTurn } from "@/components/chat/steps-model";
import { toolState } from "@/components/chat/tool-card";
import type { TApprovalView, TChatMessage, TStepRow } from "@/components/chat/types";
import { plainTitle } from "@/lib/sessions/titles";

const approval = (status: TApprovalView["status"], toolCallId = "c1"): TApprovalView => ({
  approvalId: `a-${toolCallId}`,
  toolCallId,
  toolName: "write_file",
  risk: "write",
  preview: { title: "Write plan.md", path: "plan.md", diff: "+x", origin: "javascript:alert(1)" },
  status,
  reason: null,
  expiresAt: "2030-01-01T00:00:00.000Z",
});

// A run paused for approval, then its continuation followed live: the call appears twice.
const paused: TChatMessage = {
  id: "m1",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "text", text: "I will write it." },
    { type: "dynamic-tool", toolName: "write_file", toolCallId: "c1", state: "input-available", input: { path: "plan.md" } },
    { type: "data-approval", data: approval("pending") },
  ],
};
const continuation: TChatMessage = {
  id: "m2",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "dynamic-tool", toolName: "write_file", toolCallId: "c1", state: "output-available", input: { path: "plan.md" }, output: { text: "Wrote plan.md", isError: false, durationMs: 5, step: "s0004" } },
    { type: "data-notice", data: { text: "openai (m) failed: 503 — retrying", tone: "warning", kind: "retry" } },
    { type: "text", text: "Done, **plan.md** is written." },
  ],
};

describe("chat message model", () => {
  it("draws a call repeated by a followed continuation once, where it first appeared, with its newest state", () => {
    const tools = buildToolIndex([paused, continuation]);
    expect(tools.get("c1")).toMatchObject({ messageId: "m1", partIndex: 2, part: { state: "output-available" }, approval: { status: "pending" } });
    expect([...hiddenParts(paused, tools)]).toEqual([3]);
    expect(hiddenParts(continuation, tools).has(1)).toBe(true);
    // The retry notice is old news once text came after it.
    expect(hiddenParts(continuation, tools).has(2)).toBe(true);
    expect(groupReplies([paused, continuation])).toHaveLength(1);
    expect(replyText([paused, continuation], tools)).toBe("I will write it.\n\nDone, **plan.md** is written.");
  });

  it("hands a tool's newest progress to its card, the detail its own card draws included", () => {
    const workers = { kind: "debate", workers: [{ index: 0, agent: "coder", status: "running", live: "Redis keeps" }] };
    const running: TChatMessage = {
      id: "m",
      role: "assistant",
      parts: [
        { type: "dynamic-tool", toolName: "debate", toolCallId: "d1", state: "input-available", input: { question: "q" } },
        { type: "data-progress", id: "d1", data: { toolCallId: "d1", text: "Starting", fraction: 0 } },
        { type: "data-progress", id: "d1", data: { toolCallId: "d1", text: "0 of 1 done", fraction: 0, detail: workers } },
      ],
    };
    expect(buildToolIndex([running]).get("d1")?.progress).toEqual({ text: "0 of 1 done", fraction: 0, detail: workers });
  });

  it("keeps a retry notice while it is the newest thing, and hides discarded text and repeated notices", () => {
    const message: TChatMessage = {
      id: "m",
      role: "assistant",
      parts: [
        { type: "text", text: "half an ans" },
        { type: "data-text-discard", data: { textId: "text-1" } },
        { type: "data-notice", data: { text: "Model failed.", tone: "error" } },
        { type: "data-step", data: { key: "s0002", kind: "model_call" } },
        { type: "data-notice", data: { text: "model failed", tone: "error" } },
        { type: "data-notice", data: { text: "anthropic failed — trying the next provider", tone: "warning", kind: "retry" } },
      ],
    };
    expect([...hiddenParts(message, new Map(), true)].sort()).toEqual([0, 2]);
    // Once the reply is finished the retry was only history.
    expect([...hiddenParts(message, new Map())].sort()).toEqual([0, 2, 5]);
  });

  it("finds the approval still waiting, unless it was decided on this page", () => {
    expect(pendingApproval([paused], {})?.approvalId).toBe("a-c1");
    expect(pendingApproval([paused], { "a-c1": { status: "denied" } })).toBeUndefined();
    const decided: TChatMessage = { ...paused, parts: [...paused.parts.slice(0, 3), { type: "data-approval", data: approval("approved") }] };
    expect(pendingApproval([decided], {})).toBeUndefined();
  });

  it("reads tool outputs and approval previews by checking them, never trusting their shape", () => {
    expect(readToolOutput({ type: "dynamic-tool", toolName: "t", toolCallId: "x", state: "output-available", input: {}, output: "plain" })).toEqual({ text: "plain" });
    expect(
      readToolOutput({ type: "dynamic-tool", toolName: "t", toolCallId: "x", state: "output-available", input: {}, output: { text: 5, images: ["data:image/png;base64,AA", "https://evil/x.png"] } }),
    ).toMatchObject({ text: undefined, images: ["data:image/png;base64,AA"] });
    expect(readApprovalPreview({ title: "T", diff: "", origin: "https://shop.example/" })).toEqual({ title: "T", command: undefined, path: undefined, diff: undefined, detail: undefined, origin: undefined });
    expect(readApprovalPreview({ origin: "https://shop.example" }).origin).toBe("https://shop.example");
    expect(readApprovalPreview(approval("pending").preview).origin).toBeUndefined();
  });

  it("gives a tool call one state: waiting, running after Approve, done, or not run when denied", () => {
    const part = paused.parts[2];
    if (part?.type !== "dynamic-tool") throw new Error("fixture");
    expect(toolState({ part, active: false, approvalStatus: "pending" })).toBe("waiting");
    expect(toolState({ part, active: true, approvalStatus: "approved" })).toBe("running");
    expect(toolState({ part, active: false, approvalStatus: "denied" })).toBe("denied");
    expect(toolState({ part, active: false })).toBe("error");
    const done = continuation.parts[1];
    if (done?.type !== "dynamic-tool") throw new Error("fixture");
    expect(toolState({ part: done, active: false, approvalStatus: "approved" })).toBe("done");
  });
});

describe("sidebar groups and search", () => {
  const now = new Date(2026, 10, 30, 15, 0);
  const at = (days: number, hours = 0) => new Date(2026, 10, 30 - days, 12 - hours).toISOString();
  const sessions = [
    { id: "1", title: "Café opening hours", updatedAt: at(0) },
    { id: "2", title: "Trip to Lisbon", updatedAt: at(1) },
    { id: "3", title: "Quarterly report", updatedAt: at(3) },
    { id: "4", title: "Lisbon restaurants", updatedAt: at(20) },
    { id: "5", title: "Old notes", updatedAt: at(200) },
  ];

  it("groups by the reader's days", () => {
    expect(groupSessions(sessions, now, "en-US").map((group) => [group.label, group.sessions.map((session) => session.id)])).toEqual([
      ["Today", ["1"]],
      ["Yesterday", ["2"]],
      ["Previous 7 days", ["3"]],
      ["Previous 30 days", ["4"]],
      ["May 2026", ["5"]],
    ]);
  });

  it("finds titles containing every word, ignoring case and accents", () => {
    expect(filterSessions(sessions, "lisbon").map((session) => session.id)).toEqual(["2", "4"]);
    expect(filterSessions(sessions, "CAFE hours").map((session) => session.id)).toEqual(["1"]);
    expect(filterSessions(sessions, "  ")).toHaveLength(5);
  });
});

describe("steps by turn and plain titles", () => {
  const step = (seq: number, type: TStepRow["type"], input: unknown = null): TStepRow => ({
    id: String(seq),
    key: `s000${seq}`,
    seq,
    parentStepId: null,
    type,
    name: type,
    status: "completed",
    input,
    output: null,
    error: null,
    startedAt: "",
    endedAt: null,
    durationMs: null,
    inputTokens: null,
    outputTokens: null,
    provider: null,
    model: null,
  });

  it("starts a turn at every message or command", () => {
    const turns = groupStepsByTurn([step(1, "user_input", { text: "Hello  there" }), step(2, "model_call"), step(3, "tool_call"), step(4, "command", { text: "/steps" }), step(5, "user_input", { text: "next" }), step(6, "model_call")]);
    expect(turns.map((turn) => [turn.label, turn.steps.map((entry) => entry.seq)])).toEqual([
      ["Hello there", [1, 2, 3]],
      ["/steps", [4]],
      ["next", [5, 6]],
    ]);
    expect(groupStepsByTurn([step(1, "system_note"), step(2, "user_input", { text: "hi" })]).map((turn) => turn.label)).toEqual(["Before the first message", "hi"]);
  });

  it("reduces Markdown in titles to its words", () => {
    expect(plainTitle("## Plan **now** with `read_file` and [docs](https://x.example)")).toBe("Plan now with read_file and docs");
    expect(plainTitle("<img src=x onerror=alert(1)> hi")).toBe("hi");
    expect(plainTitle("word ".repeat(30))).toMatch(/^(word ){9,}word…$/);
  });
});
