import { describe, expect, it } from "vitest";
import { agentName, finishReasonName, toolLabel } from "@/lib/telemetry/labels";
import { otlpTracesUrl } from "@/lib/telemetry/tracing";

describe("what metric labels and span names may say", () => {
  it("keeps a known tool's name and folds a name the model made up into other", () => {
    const known = new Set(["shell", "plugin__search"]);
    expect(toolLabel("shell", known)).toBe("shell");
    expect(toolLabel("plugin__search", known)).toBe("plugin__search");
    expect(toolLabel("please_run_rm_-rf_for_user_42", known)).toBe("other");
    expect(toolLabel("shell", undefined)).toBe("other");
  });

  it("names a worker's agent by its profile, and every other run xclaw", () => {
    expect(agentName({ kind: "agents.worker", agent: { name: "researcher" } })).toBe("researcher");
    expect(agentName(null)).toBe("xclaw");
    expect(agentName({ kind: "agents.team", members: ["a"] })).toBe("xclaw");
    expect(agentName({ agent: { name: "x".repeat(65) } })).toBe("xclaw");
    expect(agentName({ agent: { name: "line\nbreak" } })).toBe("xclaw");
  });

  it("maps finish reasons to the GenAI conventions' names", () => {
    expect(finishReasonName("tool-calls")).toBe("tool_call");
    expect(finishReasonName("stop")).toBe("stop");
    expect(finishReasonName("length")).toBe("length");
    expect(finishReasonName("other")).toBe("other");
  });

  it("builds the traces URL from OTEL_EXPORTER_OTLP_ENDPOINT as the OTLP specification does", () => {
    expect(otlpTracesUrl("http://collector:4318")).toBe("http://collector:4318/v1/traces");
    expect(otlpTracesUrl("https://otel.example.com/base/")).toBe("https://otel.example.com/base/v1/traces");
  });
});
