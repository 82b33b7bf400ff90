"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { ExtensionDetails, RevisionList, type TRevision } from "@/components/extensions/extension-details";
import { ExtensionList, type TExtensionSummary } from "@/components/extensions/extension-list";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import type { TBadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { inputClassName } from "@/components/ui/text-field";
import type { TAdminPlugin } from "@/lib/plugins/plugin-admin";

// The server's own type (types only, erased from the browser bundle).
export type TAdminPluginRow = TAdminPlugin;

type TField = { key: string; type: "string" | "number" | "integer" | "boolean"; title: string; description?: string; sensitive: boolean; required: boolean; enum?: unknown[]; value?: unknown; isSet?: boolean; default?: unknown };
type TDetails = { plugin: TAdminPluginRow; config: { fields: TField[] }; revisions: TRevision[] };

const RISK_WORDS: Record<string, string> = {
  read: "reads only (runs without asking)",
  write: "changes things (asks first)",
  execute: "runs something (asks first)",
  external: "acts outside xclaw (asks first)",
};

const STATUS_TONES: Partial<Record<TAdminPluginRow["status"], TBadgeTone>> = { running: "green", failed: "red", invalid: "red", staged: "blue" };

function ConfigForm({ id, fields, onSaved }: { id: string; fields: TField[]; onSaved: (details: TDetails) => void }) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(fields.map((field) => [field.key, field.sensitive ? "" : field.type === "boolean" ? Boolean(field.value ?? field.default) : String(field.value ?? "")])),
  );
  const [clear, setClear] = useState<string[]>([]);
  const { busy, feedback, submit } = useAction();
  if (!fields.length) return <p className="text-sm text-neutral-500">This plugin has no settings.</p>;

  const save = submit("save", async () => {
    const body = { values: Object.fromEntries(Object.entries(values).filter(([, value]) => value !== "")), clear };
    onSaved(await apiRequest<TDetails>(`/api/admin/plugins/${id}/config`, { method: "PUT", body }));
    setValues((current) => Object.fromEntries(Object.entries(current).map(([key, value]) => [key, fields.find((field) => field.key === key)?.sensitive ? "" : value])));
    setClear([]);
    return "Saved. A running plugin was restarted with the new settings.";
  });

  return (
    <form onSubmit={save} className="space-y-3">
      {fields.map((field) => {
        const inputId = `plugin-${id}-${field.key}`;
        return (
          <div key={field.key} className="space-y-1 text-sm">
            <label htmlFor={inputId} className="font-medium">
              {field.title}
              {field.required ? " (required)" : ""}
              {field.sensitive ? ` — secret, ${field.isSet ? "set" : "not set"}` : ""}
            </label>
            {field.description ? <p className="text-xs text-neutral-500">{field.description}</p> : null}
            {field.type === "boolean" ? (
              <input id={inputId} type="checkbox" checked={Boolean(values[field.key])} onChange={(event) => setValues({ ...values, [field.key]: event.target.checked })} />
            ) : field.enum ? (
              <select id={inputId} className={inputClassName} value={String(values[field.key] ?? "")} onChange={(event) => setValues({ ...values, [field.key]: event.target.value })}>
                <option value="">(default)</option>
                {field.enum.map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={inputId}
                className={inputClassName}
                type={field.sensitive ? "password" : field.type === "string" ? "text" : "number"}
                autoComplete={field.sensitive ? "new-password" : "off"}
                placeholder={field.sensitive ? (field.isSet ? "Leave empty to keep the stored value" : "") : field.default !== undefined ? `default: ${String(field.default)}` : ""}
                value={String(values[field.key] ?? "")}
                onChange={(event) => setValues({ ...values, [field.key]: event.target.value })}
              />
            )}
            {field.sensitive && field.isSet ? (
              <label className="inline-flex items-center gap-1.5 text-xs">
                <input type="checkbox" checked={clear.includes(field.key)} onChange={(event) => setClear(event.target.checked ? [...clear, field.key] : clear.filter((key) => key !== field.key))} />
                Remove the stored value
              </label>
            ) : null}
          </div>
        );
      })}
      <Button type="submit" size="sm" pending={busy}>
        Save settings
      </Button>
      <FeedbackAlert feedback={feedback} />
    </form>
  );
}

function PluginDetails({ plugin, onChanged }: { plugin: TAdminPluginRow; onChanged: (plugin: TAdminPluginRow) => void }) {
  const [details, setDetails] = useState<TDetails | null>(null);
  const { busy, error, run, fail } = useAction();

  const load = async () => {
    try {
      setDetails(await apiRequest<TDetails>(`/api/admin/plugins/${plugin.id}`));
    } catch (caught) {
      fail(caught);
    }
  };

  const enableVersion = (sha256: string, acknowledgeRisks: boolean) =>
    run("enable", async () => {
      const { plugin: updated } = await apiRequest<{ plugin: TAdminPluginRow }>(`/api/admin/plugins/${plugin.id}`, { method: "PATCH", body: { enabled: true, sha256, acknowledgeRisks } });
      onChanged(updated);
      await load();
    });

  return (
    <ExtensionDetails summary="Permissions, settings and versions" loaded={details !== null} onOpen={() => void load()} error={error}>
      <div>
        <h4 className="font-medium">What it may do</h4>
        <ul className="mt-1 list-disc pl-5 text-neutral-700 dark:text-neutral-300">
          {plugin.permissions.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </div>
      {plugin.tools.length ? (
        <div>
          <h4 className="font-medium">Tools</h4>
          <ul className="mt-1 list-disc pl-5 text-neutral-700 dark:text-neutral-300">
            {plugin.tools.map((tool) => (
              <li key={tool.name}>
                <span className="font-mono">{`${plugin.id.replace(/-/g, "_")}__${tool.name}`}</span> — {RISK_WORDS[tool.risk] ?? tool.risk}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {details ? (
        <>
          <div>
            <h4 className="mb-2 font-medium">Settings</h4>
            <ConfigForm
              id={plugin.id}
              fields={details.config.fields}
              onSaved={(next) => {
                setDetails(next);
                onChanged(next.plugin);
              }}
            />
          </div>
          <div className="space-y-3">
            <h4 className="font-medium">Uploaded versions</h4>
            <RevisionList revisions={details.revisions} versioned inUse={plugin.sha256} disabled={busy} onEnable={(sha256, acknowledge) => void enableVersion(sha256, acknowledge)} empty="None: this plugin comes with xclaw." />
          </div>
        </>
      ) : (
        <p className="text-neutral-500">Loading…</p>
      )}
    </ExtensionDetails>
  );
}

/** What a plugin's row says about it (extension-list.tsx draws the row). */
function summarize(plugin: TAdminPluginRow): TExtensionSummary {
  return {
    key: plugin.id,
    title: (
      <>
        <span className="font-medium">{plugin.name}</span>
        <span className="font-mono text-xs text-neutral-500">
          {plugin.id} {plugin.version}
        </span>
      </>
    ),
    name: plugin.name,
    status: plugin.status,
    statusTone: STATUS_TONES[plugin.status] ?? "neutral",
    facts: [plugin.source],
    description: plugin.description,
    problems: plugin.lastError ? [{ tone: "error", text: `Last error${plugin.lastErrorAt ? ` (${new Date(plugin.lastErrorAt).toLocaleString()})` : ""}: ${plugin.lastError}` }] : [],
    staged: plugin.staged,
    toggleable: plugin.status !== "invalid" && plugin.status !== "staged",
  };
}

export function PluginsAdmin({ initialPlugins }: { initialPlugins: TAdminPluginRow[] }) {
  return (
    <ExtensionList
      kind="plugin"
      label="Plugins"
      endpoint="/api/admin/plugins"
      listField="plugins"
      rowField="plugin"
      initial={initialPlugins}
      summarize={summarize}
      details={(plugin, onChanged) => <PluginDetails plugin={plugin} onChanged={onChanged} />}
    />
  );
}
