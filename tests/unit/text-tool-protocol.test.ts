import { describe, expect, it } from "vitest";
import { extractToolCalls, parseLenientJson, repairJson, withTextToolProtocol } from "@/lib/providers/text-tool-protocol";
import type { TModelEvent, TModelRequest, TProvider } from "@/lib/providers/types";

describe("JSON tool-call extraction", () => {
  it("reads bare JSON", () => {
    expect(extractToolCalls('{"tool_calls":[{"name":"calculator","arguments":{"expression":"1+1"}}]}')).toEqual({
      calls: [{ name: "calculator", arguments: { expression: "1+1" } }],
      text: "",
    });
  });

  it("reads a fenced block and keeps the prose around it", () => {
    const result = extractToolCalls('Let me compute that.\n```json\n{"name": "calculator", "arguments": {"expression": "2*3"}}\n```\nOne moment.');
    expect(result.calls).toEqual([{ name: "calculator", arguments: { expression: "2*3" } }]);
    expect(result.text).toBe("Let me compute that.\n\nOne moment.");
  });

  it("reads an object inline in prose, with nested braces and braces inside strings", () => {
    const result = extractToolCalls('Sure: {"tool": "write", "args": {"text": "a {curly} value", "meta": {"x": 1}}} done');
    expect(result.calls).toEqual([{ name: "write", arguments: { text: "a {curly} value", meta: { x: 1 } } }]);
    expect(result.text).toBe("Sure:  done");
  });

  it("repairs invalid escapes, raw newlines in strings and trailing commas", () => {
    const broken = '{"name": "shell", "arguments": {"command": "dir C:\\Users\\me", "note": "line1\nline2",},}';
    expect(extractToolCalls(broken).calls).toEqual([{ name: "shell", arguments: { command: "dir C:\\Users\\me", note: "line1\nline2" } }]);
    expect(repairJson('{"a": "x\\qy"}')).toBe('{"a": "x\\\\qy"}');
    expect(parseLenientJson('{"a": [1, 2,],}')).toEqual({ a: [1, 2] });
  });

  it("accepts arguments given as a JSON string and several calls at once", () => {
    const result = extractToolCalls('{"tool_calls": [{"name": "a", "arguments": "{\\"x\\": 1}"}, {"name": "b", "arguments": {}}]}');
    expect(result.calls).toEqual([{ name: "a", arguments: { x: 1 } }, { name: "b", arguments: {} }]);
  });

  it("leaves ordinary text, and JSON that is not a tool call, alone", () => {
    expect(extractToolCalls("The set {1, 2} has two elements.")).toEqual({ calls: [], text: "The set {1, 2} has two elements." });
    expect(extractToolCalls('Config: {"port": 3000}').calls).toEqual([]);
  });
});

describe("text tool protocol provider", () => {
  function scriptedProvider(reply: string): TProvider & { requests: TModelRequest[] } {
    const requests: TModelRequest[] = [];
    return {
      name: "openai",
      model: "local",
      toolCalling: "native",
      contextWindowTokens: 8_000,
      maxOutputTokens: 500,
      requests,
      async *stream(request): AsyncIterable<TModelEvent> {
        requests.push(request);
        for (const piece of reply.match(/.{1,5}/gs) ?? []) yield { type: "text-delta", text: piece };
        yield { type: "finish", reason: "stop" };
      },
    };
  }

  it("describes tools in the prompt, sends no native tools, and turns reply JSON into tool calls without showing it", async () => {
    const inner = scriptedProvider('Checking.\n```json\n{"name":"calculator","arguments":{"expression":"4/2"}}\n```');
    const provider = withTextToolProtocol(inner);
    const events: TModelEvent[] = [];
    for await (const event of provider.stream({
      system: "base",
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", text: "", toolCalls: [{ id: "1", name: "calculator", arguments: { expression: "1+1" } }] },
        { role: "tool", toolCallId: "1", toolName: "calculator", content: [{ type: "text", text: "2" }], isError: false },
      ],
      tools: [{ name: "calculator", description: "math", inputSchema: { type: "object" } }],
    })) {
      events.push(event);
    }
    const sent = inner.requests[0]!;
    expect(sent.tools).toEqual([]);
    expect(sent.system).toContain("calculator: math");
    expect(sent.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(events).toEqual([
      { type: "text-delta", text: "Checking." },
      { type: "tool-call", call: { id: "text_call_1", name: "calculator", arguments: { expression: "4/2" } } },
      { type: "finish", reason: "tool-calls" },
    ]);
  });
});
