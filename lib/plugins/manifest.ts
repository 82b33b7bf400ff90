import { Ajv, type ValidateFunction } from "ajv";
import { z } from "zod";

/**
 * The plugin manifest: `openclaw.plugin.json` (OpenClaw's name, as in the seeds) or
 * `xclaw.plugin.json`. It is static data the app reads without running any plugin code: who the
 * plugin is, where its code starts, the tools it may register, the skills it ships, its
 * configuration (a JSON Schema, sensitive fields marked) and its permissions. An invalid manifest is
 * an error shown on /admin/plugins, never a crash.
 */
export const MANIFEST_FILES = ["openclaw.plugin.json", "xclaw.plugin.json"] as const;

const ZHost = z
  .string()
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i, "must be a host name, optionally with a port (api.example.com, host:8443)");

const ZRelativePath = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !value.startsWith("/") && !value.includes("\\") && !value.split("/").includes(".."), "must be a relative path inside the plugin's folder");

export const ZPluginId = z
  .string()
  .min(1)
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/, "must be lowercase letters and digits, separated by single hyphens or underscores");

export const ZPluginManifest = z.strictObject({
  $schema: z.string().optional(),
  id: ZPluginId,
  name: z.string().trim().min(1).max(80),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, "must be a version like 1.2.3"),
  description: z.string().max(1_000).default(""),
  entry: ZRelativePath.refine((value) => /\.(?:[cm]?js|[cm]?ts)$/.test(value), "must be a .js or .ts file"),
  enabledByDefault: z.boolean().default(false),
  /** The seeds' activation block; `onStartup` means the same as enabledByDefault. */
  activation: z.strictObject({ onStartup: z.boolean().optional() }).optional(),
  configSchema: z.record(z.string(), z.unknown()),
  contracts: z.strictObject({
    tools: z.array(z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, "tool names must be snake_case, at most 48 characters")).max(64).default([]),
  }),
  skills: z.array(ZRelativePath).max(16).default([]),
  permissions: z
    .strictObject({
      network: z.strictObject({
        hosts: z.array(ZHost).max(32).default([]),
        /** Configuration fields holding a URL whose host the plugin may also reach (an admin typed it). */
        hostsFromConfig: z.array(z.string().min(1).max(64)).max(8).default([]),
      }).prefault({}),
      /** Environment variables of the app this plugin may read (its own secrets, e.g. FEISHU_APP_SECRET). */
      secrets: z.array(z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, "secret names must be UPPER_SNAKE_CASE")).max(16).default([]),
      workspace: z.enum(["none", "read", "write"]).default("none"),
      shell: z.literal(false, { error: "plugins never get a shell; a skill's scripts run in the user's sandbox instead" }).default(false),
    })
    .prefault({}),
});

export type TPluginManifest = z.infer<typeof ZPluginManifest>;

/** Names the app itself relies on: a plugin may not ask for them, whatever it calls them. */
const FORBIDDEN_SECRETS = /^(DATABASE_URL|AUTH_SECRET|NEXTAUTH_SECRET|.*_API_KEY|OPENAI_\w+|ANTHROPIC_\w+|E2B_\w+|INNGEST_\w+|BROWSER_WORKER_SECRET|PLUGIN_HOST_SECRET|XCLAW_\w+)$/;

function ajv(): Ajv {
  const instance = new Ajv({ strict: true, allErrors: false, useDefaults: true });
  // `sensitive: true` marks a secret field (write-only in the admin form, encrypted at rest).
  instance.addKeyword({ keyword: "sensitive", schemaType: "boolean" });
  return instance;
}

export type TConfigField = { key: string; type: "string" | "number" | "integer" | "boolean"; title: string; description?: string; sensitive: boolean; required: boolean; enum?: unknown[]; default?: unknown; format?: string };

export type TValidatedManifest = { manifest: TPluginManifest; validateConfig: ValidateFunction; fields: TConfigField[] };

/** Validates a manifest; throws an Error whose message says what is wrong, for the admin page. */
export function validateManifest(raw: unknown): TValidatedManifest {
  const parsed = ZPluginManifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`manifest field ${issue.path.length ? `"${issue.path.join(".")}"` : "(top level)"} ${issue.message}`);
  }
  const manifest = parsed.data;
  if (manifest.activation?.onStartup) manifest.enabledByDefault = true;
  if (new Set(manifest.contracts.tools).size !== manifest.contracts.tools.length) throw new Error("manifest field \"contracts.tools\" names a tool twice");
  for (const secret of manifest.permissions.secrets) {
    if (FORBIDDEN_SECRETS.test(secret)) throw new Error(`manifest asks for the secret ${secret}, which belongs to xclaw itself`);
  }
  const schema = manifest.configSchema as { type?: unknown; properties?: Record<string, Record<string, unknown>>; required?: string[] };
  if (schema.type !== "object") throw new Error('manifest field "configSchema" must be a JSON Schema with "type": "object"');
  let validateConfig: ValidateFunction;
  try {
    validateConfig = ajv().compile(manifest.configSchema);
  } catch (error) {
    throw new Error(`manifest field "configSchema" is not a valid JSON Schema: ${(error as Error).message}`);
  }
  const fields: TConfigField[] = Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const type = property.type;
    if (type !== "string" && type !== "number" && type !== "integer" && type !== "boolean") {
      throw new Error(`configSchema property "${key}" must have type string, number, integer or boolean (the admin form edits flat settings)`);
    }
    const sensitive = property.sensitive === true || property.writeOnly === true;
    if (sensitive && type !== "string") throw new Error(`configSchema property "${key}" is sensitive, so it must be a string`);
    return {
      key,
      type,
      title: typeof property.title === "string" ? property.title : key,
      description: typeof property.description === "string" ? property.description : undefined,
      sensitive,
      required: schema.required?.includes(key) ?? false,
      enum: Array.isArray(property.enum) ? property.enum : undefined,
      default: property.default,
      format: typeof property.format === "string" ? property.format : undefined,
    };
  });
  for (const key of manifest.permissions.network.hostsFromConfig) {
    const field = fields.find((candidate) => candidate.key === key);
    if (!field || field.type !== "string") throw new Error(`manifest permission network.hostsFromConfig names "${key}", which is not a string field of configSchema`);
  }
  return { manifest, validateConfig, fields };
}

/** The manifest's permissions in plain words, for the admin page and the review. */
export function describePermissions(manifest: TPluginManifest): string[] {
  const { network, secrets, workspace } = manifest.permissions;
  const lines: string[] = [];
  if (network.hosts.length || network.hostsFromConfig.length) {
    const parts = [...network.hosts];
    for (const key of network.hostsFromConfig) parts.push(`the host in its "${key}" setting`);
    lines.push(`Sends requests to ${parts.join(", ")} (nowhere else; private and loopback addresses only where xclaw.yaml allows them).`);
  } else lines.push("Makes no network requests.");
  lines.push(secrets.length ? `Reads these secrets from the server's environment: ${secrets.join(", ")}.` : "Reads no secrets from the server's environment.");
  const workspaceLines = {
    none: "Cannot see anyone's workspace files.",
    read: "Reads files in the workspace of the person whose chat calls it (only during that call, by xclaw's file rules).",
    write:
      "Reads and writes files in the workspace of the person whose chat calls it (only during that call, by xclaw's file rules; it writes only from tools the approval policy checks).",
  } as const;
  lines.push(workspaceLines[workspace]);
  lines.push("Cannot run shell commands.");
  if (manifest.contracts.tools.length) lines.push(`May add these tools: ${manifest.contracts.tools.join(", ")}.`);
  return lines;
}

/** Tool names of a plugin are exposed as `<namespace>__<name>`. */
export function pluginNamespace(id: string): string {
  return id.replace(/-/g, "_");
}
