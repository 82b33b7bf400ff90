import { describe, expect, it } from "vitest";
import { jsonBody, toolListEncoder } from "@/lib/providers/json-body";
import type { TToolDefinition } from "@/lib/providers/types";

const weather: TToolDefinition = { name: "weather", description: "Wetter — 天气 \"now\"", inputSchema: { type: "object", properties: { city: { type: "string" } } } };
const clock: TToolDefinition = { name: "clock", description: "The time.", inputSchema: { type: "object", properties: {} } };
const openAiTool = (tool: TToolDefinition) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } });

describe("model request bodies built from a shared tool list", () => {
  it("is the JSON of the parameters with the tool list under its key, in UTF-8", async () => {
    const encode = toolListEncoder(openAiTool);
    const params = { model: "m", messages: [{ role: "user", content: "Grüße 你好 \u2028" }], stream: true };
    const body = jsonBody(params, "tools", encode([weather, clock]));
    expect(JSON.parse(await body.text())).toEqual({ ...params, tools: [weather, clock].map(openAiTool) });
    expect(body.size).toBe(Buffer.byteLength(await body.text()));
  });

  it("leaves the key out without tools, and handles empty parameters", async () => {
    expect(JSON.parse(await jsonBody({ model: "m" }, "tools", undefined).text())).toEqual({ model: "m" });
    const encode = toolListEncoder((tool) => ({ name: tool.name }));
    expect(JSON.parse(await jsonBody({}, "tools", encode([clock])).text())).toEqual({ tools: [{ name: "clock" }] });
  });

  it("serializes a set of definitions once, and again when a definition with the same name is new", async () => {
    let calls = 0;
    const encode = toolListEncoder((tool) => {
      calls += 1;
      return { name: tool.name, description: tool.description };
    });
    const first = encode([weather, clock]);
    expect(encode([weather, clock])).toBe(first);
    expect(calls).toBe(2);
    const updated = { ...clock, description: "The time, updated." };
    const second = encode([weather, updated]);
    expect(second).not.toBe(first);
    expect(JSON.parse(await second.text())[1]).toEqual({ name: "clock", description: "The time, updated." });
  });
});
