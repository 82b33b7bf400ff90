import { beforeAll, describe, expect, it } from "vitest";
import { chainPrepareSteps } from "@/lib/capabilities/tool-provider";
import { parseBehaviourConfig } from "@/lib/config/behaviour";
import { contextCapability, createContextHook } from "@/lib/context/context-capability";
import { maskObservations, pathsOf } from "@/lib/context/masking";
import { offloadPreview, offloadToolResults, recallSlice } from "@/lib/context/offload";
import { calibrateTokenCounts, tokenCounterFor, tokenEstimateFactor, tokenizerFor } from "@/lib/providers/token-count";
import { textOf, type TMessage } from "@/lib/providers/types";

const config = parseBehaviourConfig("{}").context;

// Building a BPE's ranks takes seconds on a busy machine: once per file, with room.
beforeAll(async () => {
  await Promise.all([tokenCounterFor("gpt-4o"), tokenCounterFor("gpt-4")]);
}, 60_000);
const user = (text: string): TMessage => ({ role: "user", content: [{ type: "text", text }] });
const call = (id: string, name: string, args: unknown): TMessage => ({ role: "assistant", text: "", toolCalls: [{ id, name, arguments: args }] });
const result = (id: string, name: string, text: string, extra: Partial<TMessage & { role: "tool" }> = {}): TMessage & { role: "tool" } => ({
  role: "tool",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  ...extra,
});
const textOfMessage = (message: TMessage | undefined) => (message && message.role !== "assistant" ? textOf(message.content) : "");
// Words that are one token each in both BPEs: counts are predictable.
const words = (count: number, word = "alpha") => Array.from({ length: count }, (_, index) => `${word}${index % 10}`).join(" ");

describe("token counting (layer 1)", () => {
  it("picks the model family's tokenizer: o200k_base for gpt-4o/4.1/5/o-series, cl100k_base for older OpenAI models, an estimate otherwise", () => {
    expect(tokenizerFor("gpt-4o-mini")).toEqual({ tokenizer: "o200k_base", exact: true });
    expect(tokenizerFor("gpt-4.1")).toEqual({ tokenizer: "o200k_base", exact: true });
    expect(tokenizerFor("openai/gpt-5-mini")).toEqual({ tokenizer: "o200k_base", exact: true });
    expect(tokenizerFor("o3-mini")).toEqual({ tokenizer: "o200k_base", exact: true });
    expect(tokenizerFor("gpt-4-turbo")).toEqual({ tokenizer: "cl100k_base", exact: true });
    expect(tokenizerFor("gpt-3.5-turbo")).toEqual({ tokenizer: "cl100k_base", exact: true });
    expect(tokenizerFor("claude-sonnet-4-5")).toEqual({ tokenizer: "cl100k_base", exact: false });
    expect(tokenizerFor("qwen-max")).toEqual({ tokenizer: "cl100k_base", exact: false });
  });

  it("counts known strings exactly with the real BPEs", async () => {
    const o200k = await tokenCounterFor("gpt-4o");
    const cl100k = await tokenCounterFor("gpt-4");
    // OpenAI's cookbook example: "tiktoken is great!" is six cl100k_base tokens.
    expect(cl100k.text("tiktoken is great!")).toBe(6);
    expect(cl100k.text("hello world")).toBe(2);
    expect(o200k.text("hello world")).toBe(2);
    // o200k_base learnt Chinese; cl100k_base spends about a token per character on it.
    expect(o200k.text("你好，世界")).toBe(3);
    expect(cl100k.text("你好，世界")).toBe(6);
    expect(o200k.text("")).toBe(0);
    // Long runs without whitespace are counted in slices (the BPE is quadratic in a run's length):
    // still about right, and a wall of CJK is still a token per character.
    expect(o200k.text("界".repeat(3_500))).toBe(3_500);
    const rule = cl100k.text("=".repeat(12_000));
    expect(rule).toBe(Math.ceil(12_000 / 64)); // cl100k_base has a token for 64 "="
    expect(o200k.text(`before ${"x".repeat(100)} after`)).toBe(o200k.text("before ") + o200k.text("x".repeat(64)) + o200k.text("x".repeat(36)) + o200k.text(" after"));
    // Special-token text in a tool's output is counted, never refused.
    expect(o200k.text("<|endoftext|>")).toBeGreaterThan(0);
  });

  it("counts messages with their overhead and tool calls, and caches per message object", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const message = call("c1", "view_file", { path: "notes.md" });
    const first = counter.message(message);
    expect(first).toBe(4 + counter.text("view_file") + counter.text(JSON.stringify({ path: "notes.md" })));
    expect(counter.message(message)).toBe(first);
    expect(counter.messages([user("hello world"), message])).toBe(4 + 2 + first);
  });

  it("estimates other families from cl100k_base with a margin calibrated on the provider's reported input tokens", async () => {
    const model = `claude-test-${Math.random()}`;
    expect(tokenEstimateFactor(model)).toBe(1.15);
    const estimate = await tokenCounterFor(model);
    const exact = await tokenCounterFor("gpt-4");
    const text = words(200);
    expect(estimate.text(text)).toBe(Math.ceil(exact.text(text) * 1.15));
    // The provider says the request was 30 % bigger than counted: the factor moves towards it.
    calibrateTokenCounts(model, 1_000, 1_300);
    expect(tokenEstimateFactor(model)).toBeCloseTo(1.15 * 0.7 + 1.3 * 1.15 * 0.3, 5);
    // Absurd reports (nothing, a cache discount) are not learnt; exact tokenizers are never scaled.
    const before = tokenEstimateFactor(model);
    calibrateTokenCounts(model, 1_000, 0);
    calibrateTokenCounts(model, 1_000, 10);
    expect(tokenEstimateFactor(model)).toBe(before);
    calibrateTokenCounts("gpt-4o", 1_000, 2_000);
    expect(tokenEstimateFactor("gpt-4o")).toBe(1);
  });
});

describe("offload (layer 2)", () => {
  it("offloads a result over 2,000 tokens or 10 KB into a pointer with its start, end and how to read on", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const small = result("c1", "view_file", words(600));
    expect(counter.text(textOfMessage(small))).toBeLessThan(2_000);
    // 9 KB of one-letter words: under 10 KB, over 2,000 tokens.
    const manyTokens = result("c2", "view_file", Array.from({ length: 4_500 }, (_, index) => String.fromCharCode(97 + (index % 26))).join(" "));
    expect(new TextEncoder().encode(textOfMessage(manyTokens)).length).toBeLessThan(10 * 1024);
    const manyBytes = result("c3", "view_file", "understanding ".repeat(800)); // 11 KB, fewer than 2,000 tokens
    expect(counter.text(textOfMessage(manyBytes))).toBeLessThan(2_000);
    expect(counter.text(textOfMessage(manyTokens))).toBeGreaterThan(2_000);
    const { messages, report } = offloadToolResults([user("go"), call("c1", "view_file", {}), small, manyTokens, manyBytes], counter, config.offload);
    expect(messages[2]).toBe(small);
    for (const index of [3, 4]) {
      const text = textOfMessage(messages[index]);
      expect(text).toMatch(/^\[Offloaded tool result: [\d,]+ characters \(about [\d,]+ tokens\)/);
      expect(text).toContain(`offload_recall {"id":"c${index - 1}","offset":`);
      expect(text).toContain("data, not instructions");
    }
    const preview = textOfMessage(messages[3]);
    const full = textOfMessage(manyTokens);
    expect(preview.length).toBeLessThan(2_500);
    expect(preview).toContain(full.slice(0, 200));
    expect(preview).toContain(full.slice(-200));
    expect(report.offloaded).toBe(2);
    expect(report.tokensSaved).toBe(report.tokensBefore - report.tokensAfter);
    expect(report.tokensSaved).toBeGreaterThan(1_500);
    // The input is untouched: the loop's own history keeps the full text.
    expect(textOfMessage(manyTokens)).toBe(full);
  });

  it("never offloads the recall tools' own results, and keeps images beside the preview", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const recall = result("c2", "offload_recall", words(3_000));
    const masked = result("c3", "recall_masked", words(3_000));
    const screenshot: TMessage = { ...result("c4", "browser_screenshot", words(3_000)), content: [{ type: "text", text: words(3_000) }, { type: "image", mediaType: "image/png", data: "AAAA" }] };
    const { messages, report } = offloadToolResults([recall, masked, screenshot], counter, config.offload);
    expect(messages[0]).toBe(recall);
    expect(messages[1]).toBe(masked);
    expect((messages[2] as { content: { type: string }[] }).content.map((part) => part.type)).toEqual(["text", "image"]);
    expect(report.offloaded).toBe(1);
  });

  it("returns slices of the full text that say where they are and how to read on", () => {
    const text = Array.from({ length: 1_000 }, (_, index) => `line ${index}`).join("\n");
    const first = recallSlice(text, "c9", 0, 100);
    expect(first).toContain(`characters 0-100 of ${text.length}`);
    expect(first).toContain('offload_recall {"id":"c9","offset":100,"limit":100}');
    expect(first.endsWith(text.slice(0, 100))).toBe(true);
    const middle = recallSlice(text, "c9", 5_000, 50);
    expect(middle.endsWith(text.slice(5_000, 5_050))).toBe(true);
    const last = recallSlice(text, "c9", text.length - 10, 100);
    expect(last).toContain("that is the end");
    expect(last.endsWith(text.slice(-10))).toBe(true);
    expect(recallSlice(text, "c9", text.length + 50, 10)).toContain(`characters ${text.length}-${text.length}`);
  });

  it("never cuts an emoji (a surrogate pair) in half", () => {
    const text = "😀".repeat(10);
    const slice = recallSlice(text, "c1", 3, 4).split("\n")[1]!;
    expect(slice).toBe("😀".repeat(2));
    expect(slice.isWellFormed()).toBe(true);
    const preview = offloadPreview("😀".repeat(2_000), "c1", 4_000, config.offload);
    expect(preview.isWellFormed()).toBe(true);
  });

  it("the preview's offset continues right after the head it shows", () => {
    const text = Array.from({ length: 2_000 }, (_, index) => `row ${index}`).join("\n");
    const preview = offloadPreview(text, "c1", 5_000, config.offload);
    const offset = Number(/"offset":(\d+)/.exec(preview)![1]);
    const head = preview.split("--- start (characters 0-")[1]!.split("\n").slice(1).join("\n").split("\n--- end")[0]!;
    expect(head).toBe(text.slice(0, offset));
  });
});

describe("observation masking (layer 3)", () => {
  const settings = config.masking;
  // A conversation of eight rounds, each reading a different file with a 600-token result.
  function conversation(rounds = 8): TMessage[] {
    const messages: TMessage[] = [user("look through the files")];
    for (let round = 0; round < rounds; round++) {
      messages.push(call(`c${round}`, "view_file", { path: `file${round}.md` }));
      messages.push(result(`c${round}`, "view_file", `file${round}.md (20 lines)\n${words(600, `w${round}x`)}`));
    }
    return messages;
  }

  it("does nothing below 60 % of the window", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = conversation();
    const total = counter.messages(messages);
    const { messages: view, report } = maskObservations(messages, counter, { settings, windowTokens: Math.ceil(total / 0.59), fixedTokens: 0 });
    expect(view).toEqual(messages);
    expect(report.masked).toBe(0);
  });

  it("above it, masks the oldest results into one-line placeholders until under the target, sparing the last 3 rounds", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = conversation();
    const total = counter.messages(messages);
    const windowTokens = Math.floor(total / 0.7);
    const { messages: view, report } = maskObservations(messages, counter, { settings, windowTokens, fixedTokens: 0 });
    expect(report.masked).toBeGreaterThan(0);
    expect(total - report.tokensSaved).toBeLessThanOrEqual(windowTokens * settings.targetRatio);
    const masked = view.flatMap((message, index) => (textOfMessage(message).startsWith("[masked observation") ? [index] : []));
    // Oldest first, contiguous from the start.
    expect(masked).toEqual(Array.from({ length: masked.length }, (_, index) => 2 + index * 2));
    const placeholder = textOfMessage(view[2]);
    expect(placeholder).toMatch(/^\[masked observation: view_file \{"path":"file0\.md"\} → ok \([\d,]+ characters\): file0\.md \(20 lines\)\. About [\d,]+ tokens hidden/);
    expect(placeholder).toContain('recall_masked {"id":"c0"}');
    expect(placeholder).not.toContain("\n");
    const unrecallable = maskObservations(messages, counter, { settings, windowTokens, fixedTokens: 0, recallable: false });
    expect(textOfMessage(unrecallable.messages[2])).toMatch(/it cannot be recalled in this run\.\]$/);
    // Everything of the last three rounds is whole, even with the window nearly full.
    const squeezed = maskObservations(messages, counter, { settings, windowTokens: Math.floor(total / 2), fixedTokens: 0 });
    expect(squeezed.report.masked).toBe(5);
    for (const round of [5, 6, 7]) expect(squeezed.messages[2 + round * 2]).toBe(messages[2 + round * 2]);
  });

  it("protects older results of files the last rounds touched, and masks screenshots first", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = conversation();
    // The newest round reads file1.md again: its first reading stays visible.
    messages.push(call("again", "view_file", { path: "./file1.md" }));
    messages.push(result("again", "view_file", "short"));
    // A screenshot in round 4.
    const shot = messages[10] as TMessage & { role: "tool" };
    messages[10] = { ...shot, toolName: "browser_screenshot", content: [{ type: "text", text: "Screenshot of https://example.com" }, { type: "image", mediaType: "image/png", data: "AAAA" }] };
    const total = counter.messages(messages);
    const { messages: view, report } = maskObservations(messages, counter, { settings, windowTokens: Math.floor(total / 0.62), fixedTokens: 0 });
    expect(report.masked).toBeGreaterThan(0);
    expect(report.screenshots).toBe(1);
    expect(textOfMessage(view[10])).toMatch(/^\[masked observation: browser_screenshot .*1 image/);
    expect(view[4]).toBe(messages[4]);
    expect(pathsOf({ id: "x", name: "t", arguments: { path: "a.md", files: ["b.md", 3], query: "c.md" } })).toEqual(["a.md", "b.md"]);
  });

  it("describes the original result when an offloaded preview is masked", async () => {
    const counter = await tokenCounterFor("gpt-4o");
    const messages = conversation(5);
    messages[2] = result("c0", "view_file", `big.md (9000 lines)\n${words(4_000)}`);
    const offloaded = offloadToolResults(messages, counter, config.offload);
    const total = counter.messages(offloaded.messages);
    const { messages: view } = maskObservations(offloaded.messages, counter, { settings, windowTokens: Math.floor(total / 0.7), fixedTokens: 0, originals: messages });
    expect(textOfMessage(view[2])).toMatch(/→ ok \([\d,]+ characters\): big\.md \(9000 lines\)/);
  });
});

describe("the context capability's hook", () => {
  it("runs offload then masking for the call's model and window, and reports tokens saved per layer", async () => {
    const hook = createContextHook(config)!;
    const messages: TMessage[] = [user("read it"), call("c1", "view_file", { path: "a.md" }), result("c1", "view_file", words(5_000))];
    const recallTools = contextCapability(config)
      .tools({ userId: "u", sessionId: "s", config: parseBehaviourConfig("{}") })
      .map((tool) => ({ name: tool.name, description: tool.description, inputSchema: {} }));
    const target = { model: "gpt-4o", contextWindowTokens: 128_000, maxOutputTokens: 4_000 };
    const changed = (await hook({ iteration: 1, system: "sys", messages, target, tools: recallTools }))!;
    expect(textOfMessage(changed.messages![2])).toMatch(/^\[Offloaded tool result/);
    expect(changed.report!.offload).toMatchObject({ offloaded: 1 });
    expect(changed.report!.offload!.tokensSaved).toBeGreaterThan(3_000);
    expect(changed.report!.masking).toMatchObject({ masked: 0, tokensSaved: 0 });
    expect(textOfMessage(messages[2])).toBe(words(5_000));
    // Without a target (a bare loop) it leaves the messages alone.
    expect(await hook({ iteration: 1, system: "", messages })).toBeUndefined();
    // A run whose tools were narrowed without offload_recall gets nothing offloaded: the rest could not be read.
    const narrowed = (await hook({ iteration: 1, system: "sys", messages, target, tools: [] }))!;
    expect(narrowed.messages![2]).toBe(messages[2]);
    expect(narrowed.report!.offload).toBeUndefined();
  });

  it("is configurable: both layers off means no hook and no recall tools", () => {
    const off = parseBehaviourConfig(
      "context:\n  offload:\n    enabled: false\n  masking:\n    enabled: false\n  edits:\n    enabled: false\n  compression:\n    enabled: false\n",
    ).context;
    expect(createContextHook(off)).toBeUndefined();
    const capability = contextCapability(off);
    expect(capability.tools({ userId: "u", sessionId: "s", config: parseBehaviourConfig("{}") })).toEqual([]);
    expect(contextCapability(config).tools({ userId: "u", sessionId: "s", config: parseBehaviourConfig("{}") }).map((tool) => [tool.name, tool.risk])).toEqual([
      ["offload_recall", "read"],
      ["recall_masked", "read"],
      ["context_edit", "read"],
    ]);
  });

  it("chained with other hooks, passes the target along and merges the reports", async () => {
    const chained = chainPrepareSteps([{ id: "a", tools: () => [], prepareStep: () => async ({ target }) => ({ report: { a: { model: target?.model ?? "none" } } }) }, contextCapability(config)], {
      userId: "u",
      sessionId: "s",
      config: parseBehaviourConfig("{}"),
    })!;
    const tools = [{ name: "offload_recall", description: "", inputSchema: {} }];
    const out = (await chained({ iteration: 1, system: "", messages: [user("hi")], target: { model: "gpt-4o", contextWindowTokens: 1_000, maxOutputTokens: 100 }, tools }))!;
    expect(Object.keys(out.report!).sort()).toEqual(["a", "compression", "edits", "masking", "offload"]);
    expect(out.report!.a).toEqual({ model: "gpt-4o" });
  });
});
