import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError } from "@/lib/config/config-error";
import {
  authSecretProblem,
  checkEnvironment,
  checkEnvironmentOrExit,
  documentedVariables,
  environment,
  EXAMPLE_AUTH_SECRET,
  manifestVariable,
  parseEnvironment,
  resetEnvironment,
  type TVariableKind,
} from "@/lib/config/environment";

/** `# NAME=value` and `NAME=value` lines of .env.example, with the section (`# --- Title ---`) each is in. */
function exampleVariables(): { name: string; value: string; section: string }[] {
  const found: { name: string; value: string; section: string }[] = [];
  let section = "";
  for (const line of readFileSync(path.resolve(".env.example"), "utf8").split("\n")) {
    const heading = /^# --- (.+?) -+$/.exec(line);
    if (heading) section = heading[1]!;
    const assignment = /^(?:# ?)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)/.exec(line);
    if (assignment) found.push({ name: assignment[1]!, value: assignment[2]!, section });
  }
  return found;
}

/** The secrets bundled plugins declare (permissions.secrets): .env.example may show these too. */
function bundledPluginSecrets(): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(path.resolve("plugins"), { withFileTypes: true })) {
    for (const manifest of ["openclaw.plugin.json", "xclaw.plugin.json"]) {
      const file = path.resolve("plugins", entry.name, manifest);
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const parsed = JSON.parse(readFileSync(file, "utf8")) as { permissions?: { secrets?: string[] } };
      for (const name of parsed.permissions?.secrets ?? []) names.add(name);
    }
  }
  return names;
}

const saved = { ...process.env };
afterEach(() => {
  vi.restoreAllMocks();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  resetEnvironment();
});

describe(".env.example and the environment schema", () => {
  const documented = documentedVariables();
  const example = exampleVariables();
  const schemaNames = documented.map((variable) => variable.name);
  const pluginSecrets = bundledPluginSecrets();

  it("documents every variable of the schema, once, and nothing else but bundled plugins' secrets", () => {
    const names = example.map((variable) => variable.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index), "shown twice").toEqual([]);
    expect(schemaNames.filter((name) => !names.includes(name)), "in the schema, missing from .env.example").toEqual([]);
    const unknown = names.filter((name) => !schemaNames.includes(name));
    expect(unknown.filter((name) => !pluginSecrets.has(name)), "in .env.example, missing from the schema").toEqual([]);
    // A plugin's secret is never one of xclaw's own variables.
    expect(schemaNames.filter((name) => pluginSecrets.has(name))).toEqual([]);
  });

  it.each<[TVariableKind, string]>([
    ["test", "Tests only"],
    ["system", "Set by the system"],
  ])("marks the %s variables in the schema exactly as .env.example's section %s", (kind, sectionStart) => {
    const inSchema = documented.filter((variable) => variable.kind === kind).map((variable) => variable.name);
    const inSection = example.filter((variable) => variable.section.startsWith(sectionStart)).map((variable) => variable.name);
    expect(inSchema.length).toBeGreaterThan(0);
    expect(inSection.sort()).toEqual(inSchema.sort());
  });

  it("describes every variable in one line", () => {
    for (const variable of documented) {
      expect(variable.description, variable.name).toMatch(/^\S.{9,}$/);
      expect(variable.description, variable.name).not.toContain("\n");
    }
  });

  it("shows the example auth secret the schema refuses, so a copied .env.example cannot start with it", () => {
    const line = example.find((variable) => variable.name === "NEXTAUTH_SECRET")!;
    expect(line.value).toBe(EXAMPLE_AUTH_SECRET);
    expect(authSecretProblem(line.value, { production: true })).toMatch(/^NEXTAUTH_SECRET is the example value/);
    expect(authSecretProblem(line.value, { production: false })).toMatch(/^NEXTAUTH_SECRET is the example value/);
  });
});

describe("parsing the environment", () => {
  it("gives the declared defaults when nothing is set, and reads an empty value as unset", () => {
    for (const source of [{}, { PORT: "", XCLAW_TRUSTED_PROXIES: "", BROWSER_WORKER_HOST: "", XCLAW_DATA_DIR: "", OPENAI_BASE_URL: "", NEXTAUTH_SECRET: "" }]) {
      const parsed = parseEnvironment(source);
      expect(parsed).toMatchObject({ PORT: 3000, XCLAW_TRUSTED_PROXIES: 0, XCLAW_EMBEDDED_DB_PORT: 0, BROWSER_WORKER_HOST: "127.0.0.1", XCLAW_DATA_DIR: path.resolve(".data") });
      expect(parsed.XCLAW_DEV_ORIGINS).toEqual([]);
      expect(parsed.XCLAW_NEXT_NODE_ARGS).toEqual([]);
      expect(parsed.XCLAW_LOG_SILENT).toBe(false);
      expect(parsed.OPENAI_BASE_URL).toBeUndefined();
      expect(parsed.NEXTAUTH_SECRET).toBeUndefined();
      expect(parsed.XCLAW_BUNDLED_SKILLS).toBeUndefined();
    }
  });

  it("types what it reads: numbers, lists, lower-cased names, resolved folders", () => {
    const parsed = parseEnvironment({
      PORT: "8080",
      DATABASE_POOL_MAX: "7",
      XCLAW_PROVIDERS: " Anthropic , openai ",
      LOG_LEVEL: "WARN",
      XCLAW_DEV_ORIGINS: "devbox.local, *.preview.test",
      XCLAW_NEXT_NODE_ARGS: " --cpu-prof  --inspect ",
      XCLAW_DATA_DIR: "relative/data",
      XCLAW_BUNDLED_PLUGINS: ["plugins", "/opt/more"].join(path.delimiter),
      XCLAW_LOG_SILENT: "1",
      npm_package_version: "1.2.3",
    });
    expect(parsed).toMatchObject({ PORT: 8080, DATABASE_POOL_MAX: 7, LOG_LEVEL: "warn", XCLAW_LOG_SILENT: true, XCLAW_DATA_DIR: path.resolve("relative/data") });
    expect(parsed.XCLAW_PROVIDERS).toEqual(["anthropic", "openai"]);
    expect(parsed.XCLAW_DEV_ORIGINS).toEqual(["devbox.local", "*.preview.test"]);
    expect(parsed.XCLAW_NEXT_NODE_ARGS).toEqual(["--cpu-prof", "--inspect"]);
    expect(parsed.XCLAW_BUNDLED_PLUGINS).toEqual([path.resolve("plugins"), "/opt/more"]);
  });

  it("reads an empty XCLAW_BUNDLED_SKILLS as 'no bundled skills', not as unset", () => {
    expect(parseEnvironment({ XCLAW_BUNDLED_SKILLS: "" }).XCLAW_BUNDLED_SKILLS).toEqual([]);
  });

  it("refuses wrong values with one line per variable saying what is wrong, without echoing the value", () => {
    const source = {
      PORT: "eighty",
      DATABASE_POOL_MAX: "0",
      OPENAI_BASE_URL: "localhost:11434/v1",
      NEXTAUTH_URL: "ftp://files.example",
      LOG_LEVEL: "verbose",
      XCLAW_PROVIDERS: "openai,gemini,mistral",
      BROWSER_WORKER_PORT: "70000",
      XCLAW_LOG_SILENT: "yes",
    };
    let error: unknown;
    try {
      parseEnvironment(source);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message.split("\n")).toEqual([
      "the environment is not valid:",
      "  - DATABASE_POOL_MAX: must be a whole number from 1 to 10000",
      "  - PORT: must be a whole number from 1 to 65535",
      "  - NEXTAUTH_URL: must be an http:// or https:// URL",
      "  - OPENAI_BASE_URL: must be an http:// or https:// URL",
      "  - XCLAW_PROVIDERS: must name providers from: openai, anthropic",
      "  - BROWSER_WORKER_PORT: must be a whole number from 0 to 65535",
      "  - LOG_LEVEL: must be one of debug, info, warn, error",
      "  - XCLAW_LOG_SILENT: must be 1 or 0",
    ]);
    for (const value of ["eighty", "localhost:11434", "files.example", "verbose", "gemini", "mistral", "70000", "yes"]) expect(message).not.toContain(value);
  });

  it("parses process.env once, until resetEnvironment()", () => {
    process.env.PORT = "4100";
    resetEnvironment();
    const first = environment();
    expect(first.PORT).toBe(4100);
    process.env.PORT = "4200";
    expect(environment()).toBe(first);
    resetEnvironment();
    expect(environment().PORT).toBe(4200);
  });

  it("reads a variable a manifest names as it is now, empty as unset", () => {
    process.env.SOME_PLUGIN_TOKEN = "token-1";
    expect(manifestVariable("SOME_PLUGIN_TOKEN")).toBe("token-1");
    process.env.SOME_PLUGIN_TOKEN = "token-2";
    expect(manifestVariable("SOME_PLUGIN_TOKEN")).toBe("token-2");
    process.env.SOME_PLUGIN_TOKEN = "";
    expect(manifestVariable("SOME_PLUGIN_TOKEN")).toBeUndefined();
    expect(manifestVariable("NO_SUCH_VARIABLE_AT_ALL")).toBeUndefined();
  });
});

describe("the auth secret", () => {
  const strong = "k".repeat(32);

  it("must be set, 32 bytes or more and not the example for a production start", () => {
    expect(authSecretProblem(undefined, { production: true })).toMatch(/^NEXTAUTH_SECRET is not set: a production start needs a secret of at least 32 bytes/);
    expect(authSecretProblem("too-short-secret", { production: true })).toMatch(/^NEXTAUTH_SECRET is too short \(16 bytes\)/);
    expect(authSecretProblem("k".repeat(31), { production: true })).toMatch(/too short \(31 bytes\)/);
    expect(authSecretProblem(strong, { production: true })).toBeUndefined();
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(authSecretProblem("é".repeat(16), { production: true })).toBeUndefined();
    expect(authSecretProblem("é".repeat(15), { production: true })).toMatch(/too short \(30 bytes\)/);
    expect(authSecretProblem(EXAMPLE_AUTH_SECRET, { production: true })).toMatch(/example value/);
  });

  it("may be missing or short in development (npm run dev generates one), never the example", () => {
    expect(authSecretProblem(undefined, { production: false })).toBeUndefined();
    expect(authSecretProblem("short", { production: false })).toBeUndefined();
    expect(authSecretProblem(EXAMPLE_AUTH_SECRET, { production: false })).toMatch(/example value/);
  });

  it("is checked at start as NODE_ENV says, or as the launcher asks", () => {
    // NODE_ENV is typed read-only (Next.js's declaration); the process may still change it.
    Object.assign(process.env, { NEXTAUTH_SECRET: "short", NODE_ENV: "production" });
    resetEnvironment();
    expect(() => checkEnvironment()).toThrow(ConfigError);
    expect(() => checkEnvironment()).toThrow(/NEXTAUTH_SECRET is too short/);
    expect(() => checkEnvironment({ production: false })).not.toThrow();
    Object.assign(process.env, { NODE_ENV: "test" });
    resetEnvironment();
    expect(() => checkEnvironment()).not.toThrow();
    expect(() => checkEnvironment({ production: true })).toThrow(/NEXTAUTH_SECRET is too short/);
    process.env.NEXTAUTH_SECRET = strong;
    resetEnvironment();
    expect(checkEnvironment({ production: true }).NEXTAUTH_SECRET).toBe(strong);
  });

  it("stops a server process as it starts: the message alone on stderr, then exit 1", () => {
    Object.assign(process.env, { NEXTAUTH_SECRET: "", NODE_ENV: "production" });
    resetEnvironment();
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    expect(() => checkEnvironmentOrExit()).toThrow("exit 1");
    expect(exit).toHaveBeenCalledWith(1);
    expect(written.join("")).toMatch(/^\nxclaw: NEXTAUTH_SECRET is not set: a production start needs a secret of at least 32 bytes/);
    expect(written.join("")).not.toMatch(/^\s+at /m);
    process.env.NEXTAUTH_SECRET = strong;
    resetEnvironment();
    exit.mockClear();
    checkEnvironmentOrExit();
    expect(exit).not.toHaveBeenCalled();
  });
});
