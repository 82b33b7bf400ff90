"use client";

import { useId, useState, type FormEvent } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { Alert, FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { inputClassName, TextField } from "@/components/ui/text-field";
import type { TAgentProfileView } from "@/lib/wire/agents";

/**
 * Agent profiles on /agents (the user's own) and /admin/agents (global ones): a list with Edit and
 * Delete, and one form for creating or editing. The same API shape serves both; `mode` picks the URL.
 */
type TMode = "mine" | "global";

const BASE: Record<TMode, string> = { mine: "/api/agents", global: "/api/admin/agents" };

type TDraft = { name: string; description: string; systemPrompt: string; allowedTools: string; model: string; maxIterations: string; timeoutSeconds: string; mayDelegate: boolean };

const EMPTY: TDraft = { name: "", description: "", systemPrompt: "", allowedTools: "", model: "", maxIterations: "", timeoutSeconds: "", mayDelegate: false };

function draftOf(profile: TAgentProfileView): TDraft {
  return {
    name: profile.name,
    description: profile.description,
    systemPrompt: profile.systemPrompt,
    allowedTools: profile.allowedTools.join(", "),
    model: profile.model ?? "",
    maxIterations: profile.maxIterations?.toString() ?? "",
    timeoutSeconds: profile.timeoutSeconds?.toString() ?? "",
    mayDelegate: profile.mayDelegate,
  };
}

function bodyOf(draft: TDraft, creating: boolean) {
  const number = (text: string) => (text.trim() ? Number(text) : null);
  return {
    ...(creating ? { name: draft.name.trim() } : {}),
    description: draft.description,
    systemPrompt: draft.systemPrompt,
    allowedTools: draft.allowedTools
      .split(/[\s,]+/)
      .map((name) => name.trim())
      .filter(Boolean),
    model: draft.model.trim() || null,
    maxIterations: number(draft.maxIterations),
    timeoutSeconds: number(draft.timeoutSeconds),
    mayDelegate: draft.mayDelegate,
  };
}

export function AgentProfiles({ mode, initialProfiles, defaults }: { mode: TMode; initialProfiles: TAgentProfileView[]; defaults: { maxIterations: number; timeoutSeconds: number; tools: string[] } }) {
  const [profiles, setProfiles] = useState(initialProfiles);
  const [editing, setEditing] = useState<TAgentProfileView | "new" | undefined>(initialProfiles.length ? undefined : "new");
  const [draft, setDraft] = useState<TDraft>(EMPTY);
  const { busy: saving, feedback, error, run, announce, clear } = useAction();
  const deletion = useConfirmation<TAgentProfileView>();
  const formId = useId();

  function startEdit(profile: TAgentProfileView | "new") {
    setEditing(profile);
    setDraft(profile === "new" ? EMPTY : draftOf(profile));
    clear();
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!editing) return;
    const creating = editing === "new";
    void run("save", async () => {
      const { agent } = await apiRequest<{ agent: TAgentProfileView }>(creating ? BASE[mode] : `${BASE[mode]}/${encodeURIComponent(editing.id)}`, {
        method: creating ? "POST" : "PATCH",
        body: bodyOf(draft, creating),
      });
      setProfiles((rows) => [...rows.filter((row) => row.id !== agent.id), agent].sort((a, b) => a.name.localeCompare(b.name)));
      setEditing(undefined);
      return creating ? `Agent ${agent.name} created.` : `Agent ${agent.name} saved.`;
    });
  };

  const onDelete = deletion.confirm(async (profile) => {
    await apiRequest(`${BASE[mode]}/${encodeURIComponent(profile.id)}`, { method: "DELETE" });
    setProfiles((rows) => rows.filter((row) => row.id !== profile.id));
    announce(`Agent ${profile.name} deleted. Workers already running keep their instructions.`);
    if (editing !== "new" && editing?.id === profile.id) setEditing(undefined);
  });

  const set = (key: keyof TDraft) => (event: { target: { value: string } }) => setDraft((current) => ({ ...current, [key]: event.target.value }));

  return (
    <div className="space-y-5">
      {/* While the form is open, its error is said in the form. */}
      {feedback && !(editing && feedback.tone === "error") ? <FeedbackAlert feedback={feedback} /> : null}
      {profiles.length ? (
        <ul aria-label={mode === "mine" ? "Your agents" : "Global agents"} className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {profiles.map((profile) => (
            <li key={profile.id} data-testid="agent-profile" className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-start sm:justify-between">
              <div className="min-w-0">
                <p className="font-mono text-sm font-medium text-neutral-900 dark:text-neutral-100">{profile.name}</p>
                <p className="mt-0.5 text-sm text-neutral-700 dark:text-neutral-300">{profile.description}</p>
                <p className="mt-1 text-xs text-neutral-500 dark:text-neutral-400">
                  {profile.allowedTools.length ? `Tools: ${profile.allowedTools.join(", ")}` : "Default worker tools"}
                  {" · "}
                  {profile.maxIterations ?? defaults.maxIterations} model calls · {profile.timeoutSeconds ?? defaults.timeoutSeconds} s
                  {profile.model ? ` · ${profile.model}` : ""}
                  {profile.mayDelegate ? " · may delegate" : ""}
                </p>
              </div>
              <div className="flex shrink-0 gap-2">
                <Button variant="secondary" size="sm" aria-label={`Edit ${profile.name}`} onClick={() => startEdit(profile)}>
                  Edit
                </Button>
                <Button variant="danger" size="sm" aria-label={`Delete ${profile.name}`} onClick={() => deletion.ask(profile)}>
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">{mode === "mine" ? "You have no agents of your own yet." : "No global agents yet."}</p>
      )}

      {editing ? (
        <form id={formId} onSubmit={onSubmit} className="space-y-4 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" noValidate aria-label={editing === "new" ? "New agent" : `Edit ${editing.name}`}>
          <h3 className="text-sm font-semibold text-neutral-900 dark:text-neutral-100">{editing === "new" ? "New agent" : `Edit ${editing.name}`}</h3>
          {editing === "new" ? (
            <TextField label="Name" name="name" value={draft.name} onChange={set("name")} required maxLength={40} autoComplete="off" hint="Lower-case letters, digits, - and _, e.g. sql-expert. This is what delegate calls it." />
          ) : null}
          <TextField label="Description" name="description" value={draft.description} onChange={set("description")} required maxLength={500} hint="One line the main agent reads to choose it." />
          <div>
            <label htmlFor={`${formId}-prompt`} className="mb-1.5 block text-sm font-medium text-neutral-800 dark:text-neutral-200">
              System prompt
            </label>
            <textarea
              id={`${formId}-prompt`}
              name="systemPrompt"
              value={draft.systemPrompt}
              onChange={set("systemPrompt")}
              required
              rows={6}
              maxLength={20_000}
              className={`${inputClassName} h-auto py-2 font-mono text-sm`}
              placeholder="You are sql-expert, a database engineer. You …"
            />
          </div>
          <TextField
            label="Allowed tools"
            name="allowedTools"
            value={draft.allowedTools}
            onChange={set("allowedTools")}
            optional
            autoComplete="off"
            hint={`Comma-separated tool names. Empty: ${defaults.tools.join(", ")}. Workers always ask for approval as your chats do.`}
          />
          <div className="grid gap-4 sm:grid-cols-3">
            <TextField label="Model" name="model" value={draft.model} onChange={set("model")} optional autoComplete="off" hint="Replaces the first provider's model." />
            <TextField label="Model calls" name="maxIterations" type="number" min={1} max={100} value={draft.maxIterations} onChange={set("maxIterations")} optional hint={`Default ${defaults.maxIterations}`} />
            <TextField label="Time limit (s)" name="timeoutSeconds" type="number" min={1} max={86_400} value={draft.timeoutSeconds} onChange={set("timeoutSeconds")} optional hint={`Default ${defaults.timeoutSeconds}`} />
          </div>
          <label className="flex items-center gap-2 text-sm text-neutral-800 dark:text-neutral-200">
            <input type="checkbox" name="mayDelegate" checked={draft.mayDelegate} onChange={(event) => setDraft((current) => ({ ...current, mayDelegate: event.target.checked }))} className="size-4" />
            May delegate to other agents (one level further down)
          </label>
          {error ? <Alert tone="error">{error}</Alert> : null}
          <div className="flex gap-2">
            <Button type="submit" pending={saving}>
              {editing === "new" ? "Create agent" : "Save"}
            </Button>
            <Button type="button" variant="ghost" onClick={() => setEditing(undefined)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <Button variant="secondary" onClick={() => startEdit("new")}>
          New agent
        </Button>
      )}

      <ConfirmDialog {...deletion.dialog} title={`Delete ${deletion.subject?.name ?? ""}?`} confirmLabel="Delete" destructive onConfirm={onDelete}>
        Chats can no longer delegate to it. Workers already running keep their instructions.
      </ConfirmDialog>
    </div>
  );
}
