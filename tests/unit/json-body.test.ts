import { describe, expect, it } from "vitest";
import { jsonBody, toolPartEncoder } from "@/lib/providers/json-body";
import type { TToolDefinition } from "@/lib/providers/types";

const weather: TToolDefinition = { name: "weather", description: "Wetter — 天气 \"now\"", inputSchema: { type: "object", properties: { city: { type: "string" } } } };
const clock: TToolDefinition = { name: "clock", description: "The time.", inputSchema: { type: "object", properties: {} } };

describe("model request bodies built from shared parts", () => {
  it("is the JSON of the parameters with the tools' parts as an array, in UTF-8", async () => {
    const encode = toolPartEncoder((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));
    const params = { model: "m", messages: [{ role: "user", content: "Grüße 你好 \u2028" }], stream: true };
    const body = jsonBody(params, "tools", [weather, clock].map(encode));
    expect(JSON.parse(await body.text())).toEqual({
      ...params,
      tools: [weather, clock].map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })),
    });
  });

  it("leaves the key out without tools, and handles empty parameters", async () => {
    expect(JSON.parse(await jsonBody({ model: "m" }, "tools", []).text())).toEqual({ model: "m" });
    const encode = toolPartEncoder((tool) => ({ name: tool.name }));
    expect(JSON.parse(await jsonBody({}, "tools", [encode(clock)]).text())).toEqual({ tools: [{ name: "clock" }] });
  });

  it("serializes a definition once and reuses its bytes", () => {
    let calls = 0;
    const encode = toolPartEncoder((tool) => {
      calls += 1;
      return { name: tool.name };
    });
    const first = encode(weather);
    expect(encode(weather)).toBe(first);
    encode(clock);
    expect(calls).toBe(2);
  });
});
