import { describe, expect, it } from "vitest";
import { describePermissions, pluginNamespace, validateManifest } from "@/lib/plugins/manifest";

const valid = {
  id: "weather",
  name: "Weather",
  version: "1.0.0",
  entry: "index.ts",
  configSchema: { type: "object", properties: { baseUrl: { type: "string", default: "https://wttr.in" }, token: { type: "string", sensitive: true } } },
  contracts: { tools: ["current"] },
  permissions: { network: { hosts: ["wttr.in"], hostsFromConfig: ["baseUrl"] }, secrets: ["WEATHER_TOKEN"] },
};

describe("plugin manifest validation", () => {
  it("accepts a complete manifest, fills defaults and reads the config fields", () => {
    const { manifest, fields, validateConfig } = validateManifest(valid);
    expect(manifest).toMatchObject({ enabledByDefault: false, skills: [], permissions: { workspace: "none", shell: false } });
    expect(fields.map((field) => [field.key, field.sensitive])).toEqual([
      ["baseUrl", false],
      ["token", true],
    ]);
    const config: Record<string, unknown> = {};
    expect(validateConfig(config)).toBe(true);
    expect(config.baseUrl).toBe("https://wttr.in");
  });

  it.each([
    ["a missing id", { ...valid, id: undefined }, /"id"/],
    ["an id with capitals", { ...valid, id: "Weather" }, /"id" must be lowercase/],
    ["a version that is not x.y.z", { ...valid, version: "1.0" }, /"version" must be a version like 1\.2\.3/],
    ["an entry outside the folder", { ...valid, entry: "../evil.ts" }, /"entry" must be a relative path inside/],
    ["an entry that is not code", { ...valid, entry: "index.sh" }, /must be a \.js or \.ts file/],
    ["no configSchema", { ...valid, configSchema: undefined }, /"configSchema"/],
    ["a configSchema that is not an object schema", { ...valid, configSchema: { type: "string" } }, /"type": "object"/],
    ["an unknown JSON Schema keyword", { ...valid, configSchema: { type: "object", properties: { a: { type: "string", colour: "red" } } } }, /not a valid JSON Schema.*colour/],
    ["a nested setting", { ...valid, configSchema: { type: "object", properties: { a: { type: "object" } } } }, /must have type string, number, integer or boolean/],
    ["a sensitive number", { ...valid, configSchema: { type: "object", properties: { a: { type: "number", sensitive: true } } } }, /is sensitive, so it must be a string/],
    ["a tool name that is not snake_case", { ...valid, contracts: { tools: ["getWeather"] } }, /snake_case/],
    ["a tool declared twice", { ...valid, contracts: { tools: ["current", "current"] } }, /names a tool twice/],
    ["a shell permission", { ...valid, permissions: { shell: true } }, /never get a shell/],
    ["a workspace permission that does not exist", { ...valid, permissions: { workspace: "all" } }, /"permissions.workspace"/],
    ["a host with a path", { ...valid, permissions: { network: { hosts: ["https://wttr.in/x"] } } }, /must be a host name/],
    ["hostsFromConfig naming no setting", { ...valid, permissions: { network: { hostsFromConfig: ["nowhere"] } } }, /hostsFromConfig names "nowhere"/],
    ["a secret of xclaw itself", { ...valid, permissions: { secrets: ["DATABASE_URL"] } }, /belongs to xclaw itself/],
    ["a model key", { ...valid, permissions: { secrets: ["OPENAI_API_KEY"] } }, /belongs to xclaw itself/],
    ["an unknown top-level field", { ...valid, runAsRoot: true }, /Unrecognized key/],
  ])("refuses %s with a reason", (_name, manifest, reason) => {
    expect(() => validateManifest(manifest)).toThrow(reason);
  });

  it("reads the seeds' activation.onStartup as enabled by default", () => {
    expect(validateManifest({ ...valid, activation: { onStartup: true } }).manifest.enabledByDefault).toBe(true);
  });

  it("describes permissions in plain words and namespaces tool names", () => {
    const words = describePermissions(validateManifest(valid).manifest);
    expect(words[0]).toBe('Sends requests to wttr.in, the host in its "baseUrl" setting (nowhere else; private and loopback addresses only where xclaw.yaml allows them).');
    expect(words).toContain("Reads these secrets from the server's environment: WEATHER_TOKEN.");
    expect(words).toContain("Cannot run shell commands.");
    expect(pluginNamespace("feishu-tools")).toBe("feishu_tools");
  });
});
