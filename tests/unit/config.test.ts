import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { ConfigError, parseBehaviourConfig } from "@/lib/config/behaviour";

describe("xclaw.yaml validation", () => {
  it("accepts the committed file", () => {
    const config = parseBehaviourConfig(readFileSync("xclaw.yaml", "utf8"));
    expect(config.auth.registration).toBe("open");
    expect(config.auth.signInRateLimit.perEmail).toEqual({ maxFailures: 5, windowSeconds: 900 });
  });

  it("fills every default for an empty file", () => {
    const config = parseBehaviourConfig("");
    expect(config.agent).toEqual({ maxIterations: 12, instructions: "", maxParallelTools: 4 });
    expect(config.providers.chain).toEqual(["openai", "anthropic"]);
    expect(config.providers.openai).toEqual({ model: "gpt-4o-mini", models: [], toolCalling: "native", contextWindowTokens: 128_000, maxOutputTokens: 4_096 });
    expect({ auth: config.auth, logging: config.logging }).toEqual({
      auth: {
        registration: "open",
        sessionMaxAgeDays: 30,
        passwordMinLength: 8,
        signInRateLimit: { perEmail: { maxFailures: 5, windowSeconds: 900 }, perIp: { maxFailures: 50, windowSeconds: 900 } },
        passwordChangeRateLimit: { maxFailures: 5, windowSeconds: 900 },
        registrationRateLimit: { perIp: { maxAttempts: 30, windowSeconds: 3_600 } },
        inviteDays: 7,
        passwordResetHours: 24,
      },
      logging: { level: "info" },
    });
    expect(config.http).toEqual({ maxJsonBytes: 1024 * 1024 });
    expect(config.chat).toEqual({ attachments: { maxFileBytes: 10 * 1024 * 1024, maxFiles: 5, maxImageBytes: 5 * 1024 * 1024 }, summarizeTitles: true });
  });

  it("validates the JSON body limit", () => {
    expect(parseBehaviourConfig("http:\n  maxJsonBytes: 65536\n").http.maxJsonBytes).toBe(65_536);
    expect(() => parseBehaviourConfig("http:\n  maxJsonBytes: 10\n")).toThrowError(/http\.maxJsonBytes: Too small/);
    expect(() => parseBehaviourConfig("http:\n  maxJsonBytes: 1gb\n")).toThrowError(/http\.maxJsonBytes/);
    expect(() => parseBehaviourConfig("http:\n  maxBodyBytes: 1024\n")).toThrowError(/http: Unrecognized key: "maxBodyBytes"/);
  });

  it("names the key of an unknown setting (a typo must not be ignored)", () => {
    expect(() => parseBehaviourConfig("auth:\n  registraton: closed\n")).toThrowError(/auth: Unrecognized key: "registraton"/);
  });

  it("names the key and the problem of a wrong value", () => {
    const attempt = () => parseBehaviourConfig("auth:\n  signInRateLimit:\n    perEmail: { maxFailures: five, windowSeconds: 60 }\n");
    expect(attempt).toThrowError(ConfigError);
    expect(attempt).toThrowError(/auth\.signInRateLimit\.perEmail\.maxFailures: Invalid input: expected number, received string/);
  });

  it("reports broken YAML as such", () => {
    expect(() => parseBehaviourConfig("auth: [unclosed")).toThrowError(/xclaw\.yaml is not valid YAML/);
  });
});
