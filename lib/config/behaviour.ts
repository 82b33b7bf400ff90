import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

/**
 * Behaviour settings from the committed `xclaw.yaml` (secrets live in the environment instead).
 * Every section has defaults, so a missing file or a missing key means "the documented default";
 * an unknown key or a wrong type is a start-up error that names the key, because a typo that is
 * silently ignored is worse than a refusal to start.
 */
const ZRateLimitRule = z.strictObject({
  maxFailures: z.int().min(1).max(10_000),
  windowSeconds: z.int().min(1).max(86_400),
});

export const ZBehaviourConfig = z.strictObject({
  auth: z
    .strictObject({
      /** Whether people may sign up on their own on a new install; admins change it at run time. */
      registration: z.enum(["open", "closed"]).default("open"),
      sessionMaxAgeDays: z.int().min(1).max(365).default(30),
      passwordMinLength: z.int().min(8).max(128).default(8),
      signInRateLimit: z
        .strictObject({
          perEmail: ZRateLimitRule.default({ maxFailures: 5, windowSeconds: 900 }),
          perIp: ZRateLimitRule.default({ maxFailures: 50, windowSeconds: 900 }),
        })
        .default({ perEmail: { maxFailures: 5, windowSeconds: 900 }, perIp: { maxFailures: 50, windowSeconds: 900 } }),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(["debug", "info", "warn", "error"]).default("info"),
    })
    .prefault({}),
});

export type TBehaviourConfig = z.infer<typeof ZBehaviourConfig>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function describeIssues(error: z.ZodError, source: string): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    return `  - ${where}: ${issue.message}`;
  });
  return `${source} is not valid:\n${lines.join("\n")}`;
}

export function parseBehaviourConfig(text: string, source = "xclaw.yaml"): TBehaviourConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`${source} is not valid YAML: ${(error as Error).message}`);
  }
  const result = ZBehaviourConfig.safeParse(raw);
  if (!result.success) throw new ConfigError(describeIssues(result.error, source));
  return result.data;
}

export function configPath(): string {
  return path.resolve(process.env.XCLAW_CONFIG ?? path.join(process.cwd(), "xclaw.yaml"));
}

let cached: TBehaviourConfig | undefined;

/** Reads and validates xclaw.yaml once per process. */
export function getBehaviourConfig(): TBehaviourConfig {
  if (cached) return cached;
  const file = configPath();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || process.env.XCLAW_CONFIG) {
      throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
    }
  }
  cached = parseBehaviourConfig(text, path.basename(file));
  return cached;
}
