import { beforeAll, describe, expect, it } from "vitest";
import { contextSavings } from "@/components/chat/steps-model";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { compressHistory } from "@/lib/context/compression";
import { applyContextEdits, readContextEdit, refusalOf } from "@/lib/context/context-edits";
import { tokenCounterFor } from "@/lib/providers/token-count";
import { textOf, type TMessage } from "@/lib/providers/types";

const config = parseBehaviourConfig("{}").context;

// Building a BPE's ranks takes seconds on a busy machine: once per file, with room.
beforeAll(async () => {
  await Promise.all([tokenCounterFor("gpt-4o"), tokenCounterFor("gpt-4")]);
}, 60_000);
const user = (text: string): TMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): TMessage => ({ role: "assistant", text, toolCalls: [] });
const call = (id: string, name: string, args: unknown): TMessage => ({ role: "assistant", text: "", toolCalls: [{ id, name, arguments: args }] });
const result = (id: string, name: string, text: string, isError = false): TMessage => ({ role: "tool", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError });
const textOfMessage = (message: TMessage | undefined) => (!message ? "" : message.role === "assistant" ? message.text : textOf(message.content));
const words = (count: number, word = "alpha") => Array.from({ length: count }, (_, index) => `${word}${index % 10}`).join(" ");

/** Three turns, each reading a file; then the model's edit call and its result. */
function history(edit: unknown, accepted = true): TMessage[] {
  return [
    user("first question"),
    call("c1", "view_file", { path: "a.md" }),
    result("c1", "view_file", `A ${words(300)}`),
    assistant("a.md says A"),
    user("second question"),
    call("c2", "view_file", { path: "b.md" }),
    result("c2", "view_file", `B ${words(300)}`),
    assistant("b.md says B"),
    user("tidy up"),
    call("e1", "context_edit", edit),
    result("e1", "context_edit", accepted ? "Edited." : "Not edited: no.", !accepted),
  ];
}

describe("context_edit (layer 4a)", () => {
  it("reads the flat arguments into one edit, or says what is missing", () => {
    expect(readContextEdit({ action: "truncate_result", id: "c1", keepCharacters: 10 })).toEqual({ action: "truncate_result", id: "c1", keepCharacters: 10 });
    expect(readContextEdit({ action: "truncate_result", id: "c1" })).toEqual({ problem: "truncate_result needs keepCharacters." });
    expect(readContextEdit({ action: "replace_result", id: "c1" })).toEqual({ problem: "replace_result needs a note." });
    expect(readContextEdit({ action: "rewrite_system", id: "c1" })).toHaveProperty("problem");
  });

  it("refuses the last 3 messages and unknown ids; the system prompt is not a message at all", () => {
    const messages = history({});
    expect(refusalOf(messages.slice(0, -2), { action: "delete_turn", id: "c2" })).toMatch(/last messages/);
    expect(refusalOf(messages, { action: "delete_turn", id: "c1" })).toBeUndefined();
    expect(refusalOf(messages, { action: "delete_turn", id: "e1" })).toMatch(/last messages/);
    expect(refusalOf(messages, { action: "replace_result", id: "e1", note: "x" })).toMatch(/last messages/);
    expect(refusalOf(messages, { action: "truncate_result", id: "c2", keepCharacters: 5 })).toBeUndefined();
    expect(refusalOf(messages, { action: "truncate_result", id: "nope", keepCharacters: 5 })).toMatch(/No tool result "nope"/);
  });

  it("deletes a whole turn from the view, leaving the input and every other pairing alone", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = history({ action: "delete_turn", id: "c1" });
    const { messages: view, report } = applyContextEdits(messages, counter.messages);
    expect(view.map(textOfMessage).slice(0, 2)).toEqual(["second question", ""]);
    expect(view).toHaveLength(messages.length - 4);
    expect(report.applied).toBe(1);
    expect(report.tokensSaved).toBe(counter.messages(messages) - counter.messages(view));
    expect(messages).toHaveLength(11);
  });

  it("truncates and replaces results, pointing at the stored text", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const truncated = applyContextEdits(history({ action: "truncate_result", id: "c1", keepCharacters: 20 }), counter.messages).messages;
    expect(textOfMessage(truncated[2])).toMatch(/^A alpha0 alpha1 alph\n\[Truncated by context_edit: \d+ more characters; offload_recall \{"id":"c1","offset":20\} reads them\.\]$/);
    const replaced = applyContextEdits(history({ action: "replace_result", id: "c2", note: "b.md is the config" }), counter.messages).messages;
    expect(textOfMessage(replaced[6])).toBe("[This result was replaced by a note (context_edit): b.md is the config]");
  });

  it("never applies an edit the tool refused or whose step was rolled back (no successful result)", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const refused = history({ action: "delete_turn", id: "c1" }, false);
    expect(applyContextEdits(refused, counter.messages).report.applied).toBe(0);
    // A rolled-back edit step: the history answers the call with "no recorded result" (an error).
    const rolledBack = history({ action: "delete_turn", id: "c1" });
    rolledBack[10] = result("e1", "context_edit", "This tool call has no recorded result (it was rolled back or never ran).", true);
    expect(applyContextEdits(rolledBack, counter.messages).messages).toEqual(rolledBack);
  });
});

describe("compression (layer 4b)", () => {
  const settings = config.compression;
  function turns(count: number): TMessage[] {
    return Array.from({ length: count }, (_, index) => [user(`question ${index} ${words(200)}`), assistant(`answer ${index}`)]).flat();
  }

  it("does nothing under 75 % of the window, then summarises the oldest turns once and reuses the summary through the cooldown", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = turns(10);
    const total = counter.messages(messages);
    const sessionId = `session-${Math.random()}`;
    let calls = 0;
    const summarize = async (transcript: string) => {
      calls += 1;
      expect(transcript).toContain("question 0");
      return `summary ${calls}`;
    };
    const under = await compressHistory(messages, counter, { settings, sessionId, windowTokens: Math.ceil(total / 0.74), fixedTokens: 0, summarize });
    expect(under.report.compressed).toBe(false);
    expect(calls).toBe(0);

    const windowTokens = Math.floor(total / 0.8);
    const first = await compressHistory(messages, counter, { settings, sessionId, windowTokens, fixedTokens: 0, summarize });
    expect(first.report).toMatchObject({ compressed: true, summarized: true });
    expect(textOfMessage(first.messages[0])).toMatch(/^\[Summary of the earlier conversation, compressed to save context.*\]\nsummary 1$/);
    expect(first.messages.at(-1)).toBe(messages.at(-1));
    expect(counter.messages(first.messages)).toBeLessThanOrEqual(windowTokens * settings.targetRatio + counter.text(textOfMessage(first.messages[0])) + 10);
    expect(first.report.tokensSaved).toBeGreaterThan(0);

    // The next calls, one turn longer each, reuse it: the same prefix, no model call.
    let grown = [...messages];
    for (let call = 1; call <= settings.cooldownCalls; call++) {
      grown = [...grown, user(`more ${call}`), assistant("ok")];
      const again = await compressHistory(grown, counter, { settings, sessionId, windowTokens, fixedTokens: 0, summarize });
      expect(again.report).toMatchObject({ compressed: true, summarized: false, turns: first.report.turns });
      expect(textOfMessage(again.messages[0])).toBe(textOfMessage(first.messages[0]));
    }
    expect(calls).toBe(1);
    // After the cooldown it may summarise again.
    const after = await compressHistory(grown, counter, { settings, sessionId, windowTokens, fixedTokens: 0, summarize });
    expect(after.report.summarized).toBe(true);
    expect(calls).toBe(2);
  });

  it("never reuses a summary for other turns than it describes (a rollback, then new turns)", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = turns(10);
    const windowTokens = Math.floor(counter.messages(messages) / 0.8);
    const sessionId = `session-${Math.random()}`;
    let calls = 0;
    const summarize = async () => `summary ${++calls}`;
    const first = await compressHistory(messages, counter, { settings, sessionId, windowTokens, fixedTokens: 0, summarize });
    expect(first.report.turns).toBeGreaterThan(2);
    // Rolled back to turn 2, then as many new turns: the first turns are no longer the summarised ones.
    const rewritten = [...messages.slice(0, 4), ...turns(8).map((message) => (message.role === "user" ? user(`new ${textOfMessage(message)}`) : message))];
    const again = await compressHistory(rewritten, counter, { settings, sessionId, windowTokens, fixedTokens: 0, summarize });
    expect(again.report.summarized).toBe(true);
    expect(calls).toBe(2);
  });

  it("leaves the messages alone when the summariser fails or is absent", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = turns(6);
    const windowTokens = Math.floor(counter.messages(messages) / 0.9);
    const failing = await compressHistory(messages, counter, {
      settings,
      sessionId: `s-${Math.random()}`,
      windowTokens,
      fixedTokens: 0,
      summarize: async () => {
        throw new Error("provider down");
      },
    });
    expect(failing.messages).toEqual(messages);
    expect(failing.report.compressed).toBe(false);
    const absent = await compressHistory(messages, counter, { settings, sessionId: `s-${Math.random()}`, windowTokens, fixedTokens: 0 });
    expect(absent.messages).toEqual(messages);
  });
});

describe("the Steps panel's line", () => {
  const step = (type: string, output: unknown) => ({ type, output }) as Parameters<typeof contextSavings>[0];
  it("sums the tokens each layer saved on a model call, and says nothing when none did", () => {
    const context = { offload: { offloaded: 1, tokensSaved: 10_000 }, masking: { masked: 2, tokensSaved: 2_345 }, edits: { applied: 0, tokensSaved: 0 }, window: { tokens: 5_000 } };
    expect(contextSavings(step("model_call", { text: "", toolCalls: [], context }))).toBe("context −12,345 tokens (offload 10,000, masking 2,345)");
    expect(contextSavings(step("model_call", { text: "", toolCalls: [], context: { offload: { tokensSaved: 0 } } }))).toBeNull();
    expect(contextSavings(step("model_call", { text: "", toolCalls: [] }))).toBeNull();
    expect(contextSavings(step("tool_call", { context }))).toBeNull();
  });
});
