"use client";

import { useCallback, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { ScanReport, type TReport } from "@/components/extensions/scan-report";
import { UploadForm } from "@/components/extensions/upload-form";
import { useExtensionList } from "@/components/extensions/use-extension-list";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName } from "@/components/ui/text-field";
import type { TAdminPlugin } from "@/lib/plugins/plugin-admin";

// The server's own type (types only, erased from the browser bundle).
export type TAdminPluginRow = TAdminPlugin;

type TField = { key: string; type: "string" | "number" | "integer" | "boolean"; title: string; description?: string; sensitive: boolean; required: boolean; enum?: unknown[]; value?: unknown; isSet?: boolean; default?: unknown };
type TDetails = { plugin: TAdminPluginRow; config: { fields: TField[] }; revisions: { sha256: string; version: string | null; status: string; createdAt: string; report: TReport }[] };

const RISK_WORDS: Record<string, string> = {
  read: "reads only (runs without asking)",
  write: "changes things (asks first)",
  execute: "runs something (asks first)",
  external: "acts outside xclaw (asks first)",
};

const STATUS_STYLE: Record<string, string> = {
  running: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  invalid: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  staged: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200",
};

function ConfigForm({ id, fields, onSaved }: { id: string; fields: TField[]; onSaved: (details: TDetails) => void }) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(fields.map((field) => [field.key, field.sensitive ? "" : field.type === "boolean" ? Boolean(field.value ?? field.default) : String(field.value ?? "")])),
  );
  const [clear, setClear] = useState<string[]>([]);
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string } | null>(null);
  if (!fields.length) return <p className="text-sm text-neutral-500">This plugin has no settings.</p>;

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setPending(true);
    setMessage(null);
    try {
      const body = { values: Object.fromEntries(Object.entries(values).filter(([, value]) => value !== "")), clear };
      onSaved(await apiRequest<TDetails>(`/api/admin/plugins/${id}/config`, { method: "PUT", body }));
      setValues((current) => Object.fromEntries(Object.entries(current).map(([key, value]) => [key, fields.find((field) => field.key === key)?.sensitive ? "" : value])));
      setClear([]);
      setMessage({ tone: "success", text: "Saved. A running plugin was restarted with the new settings." });
    } catch (caught) {
      setMessage({ tone: "error", text: errorMessage(caught) });
    } finally {
      setPending(false);
    }
  };

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
      <Button type="submit" size="sm" pending={pending} disabled={pending}>
        Save settings
      </Button>
      {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
    </form>
  );
}

function PluginDetails({ plugin, onChanged }: { plugin: TAdminPluginRow; onChanged: (plugin: TAdminPluginRow) => void }) {
  const [details, setDetails] = useState<TDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [acknowledge, setAcknowledge] = useState(false);
  const [pending, setPending] = useState(false);

  const load = useCallback(async () => {
    try {
      setDetails(await apiRequest<TDetails>(`/api/admin/plugins/${plugin.id}`));
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }, [plugin.id]);

  const enableVersion = async (sha256: string) => {
    setPending(true);
    setError(null);
    try {
      const { plugin: updated } = await apiRequest<{ plugin: TAdminPluginRow }>(`/api/admin/plugins/${plugin.id}`, { method: "PATCH", body: { enabled: true, sha256, acknowledgeRisks: acknowledge } });
      onChanged(updated);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  };

  return (
    <details className="mt-2" onToggle={(event) => (event.currentTarget.open && !details ? void load() : undefined)}>
      <summary className="cursor-pointer text-sm text-blue-700 dark:text-blue-400">Permissions, settings and versions</summary>
      <div className="mt-3 space-y-4 text-sm">
        {error ? <Alert>{error}</Alert> : null}
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
              <ConfigForm id={plugin.id} fields={details.config.fields} onSaved={(next) => {
                setDetails(next);
                onChanged(next.plugin);
              }} />
            </div>
            {details.revisions.length ? (
              <div className="space-y-3">
                <h4 className="font-medium">Uploaded versions</h4>
                {details.revisions.map((revision) => (
                  <div key={revision.sha256} className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-800">
                    <p>
                      <span className="font-medium">{revision.version ?? "?"}</span> · {revision.status}
                      {revision.sha256 === plugin.sha256 ? " · in use" : ""}
                    </p>
                    <ScanReport report={revision.report} title="Report" />
                    {revision.sha256 !== plugin.sha256 && revision.status !== "discarded" ? (
                      <div className="mt-2 flex flex-wrap items-center gap-3">
                        {revision.status === "staged" && revision.report.findings.some((finding) => finding.severity === "high") ? (
                          <label className="inline-flex items-center gap-1.5">
                            <input type="checkbox" checked={acknowledge} onChange={(event) => setAcknowledge(event.target.checked)} />I read the high-risk findings and trust this version
                          </label>
                        ) : null}
                        <Button size="sm" disabled={pending} onClick={() => void enableVersion(revision.sha256)}>
                          Enable this version
                        </Button>
                      </div>
                    ) : null}
                  </div>
                ))}
              </div>
            ) : null}
          </>
        ) : (
          <p className="text-neutral-500">Loading…</p>
        )}
      </div>
    </details>
  );
}

export function PluginsAdmin({ initialPlugins }: { initialPlugins: TAdminPluginRow[] }) {
  const { rows: plugins, error, pending, refresh, replace, toggle } = useExtensionList<TAdminPluginRow>({
    initial: initialPlugins,
    endpoint: "/api/admin/plugins",
    listField: "plugins",
    rowField: "plugin",
    key: (row) => row.id,
  });

  return (
    <div className="space-y-6">
      <div>
        <h3 className="mb-2 text-sm font-semibold">Upload a plugin</h3>
        <UploadForm endpoint="/api/admin/plugins" kind="plugin" onUploaded={() => void refresh()} />
      </div>
      {error ? <Alert>{error}</Alert> : null}
      <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-label="Plugins">
        {plugins.map((plugin) => (
          <li key={plugin.id} className="py-3" data-testid={`plugin-${plugin.id}`}>
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{plugin.name}</span>
                  <span className="font-mono text-xs text-neutral-500">
                    {plugin.id} {plugin.version}
                  </span>
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[plugin.status] ?? "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300"}`}>{plugin.status}</span>
                  <span className="text-xs text-neutral-500">{plugin.source}</span>
                </p>
                {plugin.description ? <p className="mt-1 text-sm text-neutral-700 dark:text-neutral-300">{plugin.description}</p> : null}
                {plugin.lastError ? (
                  <p className="mt-1 text-sm break-words text-red-700 dark:text-red-400">
                    Last error{plugin.lastErrorAt ? ` (${new Date(plugin.lastErrorAt).toLocaleString()})` : ""}: {plugin.lastError}
                  </p>
                ) : null}
                {plugin.staged ? <p className="mt-1 text-sm text-blue-800 dark:text-blue-300">Version {plugin.staged.version ?? "?"} waits for review ({plugin.staged.verdict}{plugin.staged.high ? `, ${plugin.staged.high} high-risk` : ""}).</p> : null}
              </div>
              {plugin.status !== "invalid" && plugin.status !== "staged" ? (
                <Button size="sm" variant={plugin.enabled ? "secondary" : "primary"} pending={pending === plugin.id} disabled={pending !== null} onClick={() => void toggle(plugin)} aria-label={`${plugin.enabled ? "Disable" : "Enable"} ${plugin.name}`}>
                  {plugin.enabled ? "Disable" : "Enable"}
                </Button>
              ) : null}
            </div>
            <PluginDetails plugin={plugin} onChanged={replace} />
          </li>
        ))}
      </ul>
    </div>
  );
}
