import { parse as parseYaml } from "yaml";

/**
 * Readers for the deployment files (Dockerfile, compose.yaml, Caddyfile, .env.example), for
 * tests/unit/deploy-files.test.ts. No Docker engine runs on these machines, so the files are
 * checked by reading them.
 *
 * The Dockerfile reader is a small line parser written for these tests, for now: it knows
 * comments, line continuations, stages and the instructions' words, and nothing of heredocs or
 * parser directives beyond `# syntax`. `dockerfile-ast` (the parser behind VS Code's Dockerfile
 * support; already installed here through e2b) should replace it once it can be added as a
 * devDependency.
 */

export type TInstruction = { keyword: string; arguments: string; line: number };
export type TStage = { name: string; from: string; instructions: TInstruction[] };
export type TDockerfile = { globalArguments: TInstruction[]; stages: TStage[] };

/** Instructions in order, continuation lines joined, comments and blank lines dropped. */
export function readInstructions(text: string): TInstruction[] {
  const instructions: TInstruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    // A comment inside a continued instruction is skipped, as Docker does.
    if (/^\s*#/.test(line) || (!pending && !line.trim())) return;
    const continued = line.endsWith("\\");
    const part = continued ? line.slice(0, -1) : line;
    pending = pending ? { text: `${pending.text} ${part.trim()}`, line: pending.line } : { text: part.trim(), line: index + 1 };
    if (continued) return;
    const [keyword = "", ...rest] = pending.text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), arguments: rest.join(" "), line: pending.line });
    pending = undefined;
  });
  return instructions;
}

export function parseDockerfile(text: string): TDockerfile {
  const globalArguments: TInstruction[] = [];
  const stages: TStage[] = [];
  for (const instruction of readInstructions(text)) {
    if (instruction.keyword === "FROM") {
      const match = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.arguments);
      stages.push({ name: match?.[2] ?? String(stages.length), from: match?.[1] ?? "", instructions: [] });
    } else if (stages.length) {
      stages.at(-1)!.instructions.push(instruction);
    } else if (instruction.keyword === "ARG") {
      globalArguments.push(instruction);
    }
  }
  return { globalArguments, stages };
}

/** ENV and ARG as name → value (undefined: declared without one), both `a=b c=d` and `a b`. */
export function declaredVariables(instruction: TInstruction): Map<string, string | undefined> {
  const variables = new Map<string, string | undefined>();
  const text = instruction.arguments;
  if (instruction.keyword === "ENV" && !/^\S+=/.test(text)) {
    const [name = "", ...value] = text.split(/\s+/);
    variables.set(name, value.join(" "));
    return variables;
  }
  for (const [, name = "", value] of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) {
    variables.set(name, value === undefined ? undefined : value.replace(/^["']|["']$/g, ""));
  }
  return variables;
}

/** A JSON-form instruction (`CMD ["a", "b"]`) as its words; the shell form split on spaces. */
export function commandWords(instruction: TInstruction): string[] {
  const text = instruction.arguments.replace(/^--\S+\s+/g, "");
  if (text.startsWith("[")) return JSON.parse(text) as string[];
  return text.split(/\s+/);
}

export type TComposeService = Record<string, unknown> & {
  image?: string;
  build?: { target?: string };
  profiles?: string[];
  environment?: Record<string, string | null> | string[];
  env_file?: string | string[];
  ports?: (string | number | { host_ip?: string; published?: string | number; target?: number })[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  networks?: string[] | Record<string, unknown>;
};
export type TCompose = { services: Record<string, TComposeService>; volumes?: Record<string, unknown>; networks?: Record<string, unknown> };

/** compose.yaml as Docker Compose reads it: YAML with anchors and `<<` merge keys. */
export function parseCompose(text: string): TCompose {
  return parseYaml(text, { merge: true }) as TCompose;
}

/** A service's environment as name → value (null: passed through from .env when set there). */
export function serviceEnvironment(service: TComposeService): Map<string, string | null> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return new Map(environment.map((entry) => (entry.includes("=") ? [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] : [entry, null])));
  }
  return new Map(Object.entries(environment).map(([name, value]) => [name, value === null ? null : String(value)]));
}

export type TPublishedPort = { hostIp: string | undefined; published: string; target: string };

/** Published ports in both syntaxes: "[ip:]published:target[/protocol]" and the long form. */
export function publishedPorts(service: TComposeService): TPublishedPort[] {
  return (service.ports ?? []).flatMap((port) => {
    if (typeof port === "object") return port.published === undefined ? [] : [{ hostIp: port.host_ip, published: String(port.published), target: String(port.target) }];
    const parts = String(port).replace(/\/(tcp|udp)$/, "").split(":");
    // "3000" alone publishes on a random host port of every interface.
    if (parts.length === 1) return [{ hostIp: undefined, published: "", target: parts[0]! }];
    const target = parts.pop()!;
    const published = parts.pop()!;
    return [{ hostIp: parts.length ? parts.join(":").replace(/^\[|\]$/g, "") : undefined, published, target }];
  });
}

/** Named volumes a service mounts: target path → volume name (bind mounts are left out). */
export function namedVolumeMounts(service: TComposeService): Map<string, string> {
  const mounts = new Map<string, string>();
  for (const volume of service.volumes ?? []) {
    if (typeof volume === "object") {
      if ((volume.type ?? "volume") === "volume" && volume.source && volume.target) mounts.set(volume.target, volume.source);
      continue;
    }
    const [source = "", target = ""] = volume.split(":");
    if (target && !/^[./~]/.test(source)) mounts.set(target, source);
  }
  return mounts;
}

/** Names of the variables compose.yaml reads: `${NAME…}` anywhere, and pass-through environment entries. */
export function composeVariables(text: string, compose: TCompose): Set<string> {
  const names = new Set<string>();
  // `$${…}` is a literal dollar for the container's shell, not a variable of compose.
  for (const match of text.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1]!);
  for (const service of Object.values(compose.services)) {
    for (const [name, value] of serviceEnvironment(service)) if (value === null) names.add(name);
  }
  return names;
}

/** Variables .env.example documents, set or commented out: `NAME=` or `# NAME=` at a line's start. */
export function documentedVariables(text: string): Set<string> {
  return new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!));
}

/** The lines of the Caddyfile block that opens with `opening` (e.g. "reverse_proxy"), nested blocks included. */
export function caddyBlock(text: string, opening: RegExp): string[] | undefined {
  const lines = text.split("\n").map((line) => line.replace(/#.*$/, "").trim());
  const start = lines.findIndex((line) => opening.test(line) && line.endsWith("{"));
  if (start < 0) return undefined;
  const block: string[] = [];
  let depth = 0;
  for (const line of lines.slice(start)) {
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
    block.push(line);
    if (depth <= 0) break;
  }
  return block;
}
