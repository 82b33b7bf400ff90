import { z } from "zod";
import { db } from "@/lib/db/client";
import type { Plugin, Prisma } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import type { TConfigField, TValidatedManifest } from "./manifest";
import { manifestOf } from "./plugin-registry";
import { decryptSecrets, encryptSecrets } from "./secret-config";

/**
 * A plugin's configuration: plain values in `plugins.config`, sensitive ones (configSchema fields
 * marked `sensitive`) encrypted in `plugins.secretConfig`. Both are validated together against the
 * manifest's configSchema (defaults filled in) before the plugin gets them.
 */
export function effectiveConfig(plugin: Plugin, validated: TValidatedManifest): { values: Record<string, unknown> } | { error: string } {
  let secrets: Record<string, string>;
  try {
    secrets = decryptSecrets(plugin.secretConfig);
  } catch (error) {
    return { error: (error as Error).message };
  }
  const values: Record<string, unknown> = { ...(plugin.config as Record<string, unknown>), ...secrets };
  if (!validated.validateConfig(values)) {
    const problem = validated.validateConfig.errors?.[0];
    const where = problem?.instancePath ? problem.instancePath.slice(1) : ((problem?.params as { missingProperty?: string })?.missingProperty ?? "");
    return { error: `Its configuration is not valid${where ? ` (${where})` : ""}: ${problem?.message ?? "see the form"}. Fix it on /admin/plugins.` };
  }
  return { values };
}

export const ZPluginConfigInput = z.strictObject({
  /** Plain settings, all of them (missing ones are removed); sensitive ones are set only when non-empty. */
  values: z.record(z.string(), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()])),
  /** Sensitive settings to remove. */
  clear: z.array(z.string()).max(64).default([]),
});

export type TConfigView = { fields: (TConfigField & { value?: unknown; isSet?: boolean })[] };

/** The form's view: plain values as stored, sensitive ones only as "set" or "not set". */
export function configView(plugin: Plugin): TConfigView {
  const validated = manifestOf(plugin);
  if (!validated) return { fields: [] };
  let secrets: Record<string, string> = {};
  try {
    secrets = decryptSecrets(plugin.secretConfig);
  } catch {
    secrets = {};
  }
  const config = plugin.config as Record<string, unknown>;
  return { fields: validated.fields.map((field) => (field.sensitive ? { ...field, default: undefined, isSet: Boolean(secrets[field.key]) } : { ...field, value: config[field.key] })) };
}

export async function updatePluginConfig(options: { id: string; input: z.infer<typeof ZPluginConfigInput> }): Promise<Plugin> {
  const plugin = await db().plugin.findUnique({ where: { id: options.id } });
  if (!plugin) throw new AppError("not_found", "No such plugin.");
  const validated = manifestOf(plugin);
  if (!validated) throw new AppError("conflict", "This plugin's manifest is invalid, so it cannot be configured.");
  const fields = new Map(validated.fields.map((field) => [field.key, field]));
  for (const key of [...Object.keys(options.input.values), ...options.input.clear]) {
    if (!fields.has(key)) throw new AppError("bad_request", `This plugin has no setting called ${key}.`);
  }
  const config: Record<string, unknown> = {};
  let secrets: Record<string, string>;
  try {
    secrets = decryptSecrets(plugin.secretConfig);
  } catch {
    secrets = {};
  }
  for (const [key, value] of Object.entries(options.input.values)) {
    const field = fields.get(key)!;
    if (value === null || value === "") {
      if (!field.sensitive) continue;
      continue;
    }
    if (field.sensitive) secrets[key] = String(value);
    else config[key] = field.type === "number" || field.type === "integer" ? (typeof value === "string" ? Number(value) : value) : field.type === "boolean" ? value === true || value === "true" : value;
  }
  for (const key of options.input.clear) delete secrets[key];
  const check = { ...config, ...secrets };
  if (!validated.validateConfig(check)) {
    const problem = validated.validateConfig.errors?.[0];
    const where = problem?.instancePath ? problem.instancePath.slice(1) : ((problem?.params as { missingProperty?: string })?.missingProperty ?? "");
    throw new AppError("bad_request", `The setting ${where || "values"} ${problem?.message ?? "is not valid"}.`);
  }
  return db().plugin.update({ where: { id: plugin.id }, data: { config: config as Prisma.InputJsonValue, secretConfig: encryptSecrets(secrets) } });
}
