"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName, TextField } from "@/components/ui/text-field";

export type TSkillRow = { name: string; description: string; available: boolean; reason?: string; source: string; userInvocable: boolean };
export type TPersonalSkillRow = { id: string; name: string; description: string; body: string; updatedAt: string; findings: { severity: string; rule: string; detail: string }[] };

/** What a person can use (✅) and why the rest is unavailable (❌), and their own markdown skills. */
export function SkillsPage({ initialSkills, initialPersonal }: { initialSkills: TSkillRow[]; initialPersonal: TPersonalSkillRow[] }) {
  const [skills, setSkills] = useState(initialSkills);
  const [personal, setPersonal] = useState(initialPersonal);
  const [draft, setDraft] = useState({ name: "", description: "", body: "" });
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<{ tone: "error" | "success"; text: string } | null>(null);

  const reload = async () => {
    const answer = await apiRequest<{ skills: TSkillRow[]; personal: TPersonalSkillRow[] }>("/api/skills");
    setSkills(answer.skills);
    setPersonal(answer.personal);
  };

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setPending(true);
    setMessage(null);
    try {
      await apiRequest("/api/skills", { method: "POST", body: draft });
      setDraft({ name: "", description: "", body: "" });
      setMessage({ tone: "success", text: `Saved ${draft.name}. Type $${draft.name} in a chat to use it.` });
      await reload();
    } catch (caught) {
      setMessage({ tone: "error", text: errorMessage(caught) });
    } finally {
      setPending(false);
    }
  };

  const remove = async (name: string) => {
    try {
      await apiRequest(`/api/skills/${name}`, { method: "DELETE" });
      await reload();
    } catch (caught) {
      setMessage({ tone: "error", text: errorMessage(caught) });
    }
  };

  return (
    <div className="space-y-8">
      <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-label="Skills you can use">
        {skills.map((skill) => (
          <li key={`${skill.source}-${skill.name}`} className="flex gap-3 py-3">
            <span aria-hidden="true">{skill.available ? "✅" : "❌"}</span>
            <div className="min-w-0">
              <p>
                <span className="font-mono font-medium">{skill.name}</span>
                <span className="sr-only">{skill.available ? " available" : " unavailable"}</span>
                {skill.source === "personal" ? <span className="ml-2 text-xs text-neutral-500">yours</span> : null}
              </p>
              <p className="text-sm text-neutral-700 dark:text-neutral-300">{skill.description}</p>
              {skill.available ? (
                skill.userInvocable ? <p className="text-xs text-neutral-500">Type ${skill.name} in a message to use it.</p> : <p className="text-xs text-neutral-500">The agent loads it when it needs it.</p>
              ) : (
                <p className="text-sm text-amber-800 dark:text-amber-300">Unavailable: {skill.reason}</p>
              )}
            </div>
          </li>
        ))}
        {!skills.length ? <li className="py-3 text-sm text-neutral-500">No skills yet.</li> : null}
      </ul>

      <div>
        <h2 className="text-base font-semibold">Your own skills</h2>
        <p className="mt-1 text-sm text-neutral-600 dark:text-neutral-400">Markdown instructions only, visible to you alone. Name: lowercase letters, digits and hyphens.</p>
        <ul className="mt-3 space-y-2">
          {personal.map((skill) => (
            <li key={skill.id} className="rounded-lg border border-neutral-200 p-3 text-sm dark:border-neutral-800">
              <div className="flex items-start justify-between gap-2">
                <div>
                  <p className="font-mono font-medium">{skill.name}</p>
                  <p className="text-neutral-700 dark:text-neutral-300">{skill.description}</p>
                  {skill.findings.filter((finding) => finding.severity === "high").map((finding) => (
                    <p key={finding.rule} className="text-amber-800 dark:text-amber-300">
                      Note: {finding.detail}
                    </p>
                  ))}
                </div>
                <div className="flex gap-2">
                  <Button size="sm" variant="ghost" onClick={() => setDraft({ name: skill.name, description: skill.description, body: skill.body })}>
                    Edit
                  </Button>
                  <Button size="sm" variant="danger" onClick={() => void remove(skill.name)} aria-label={`Delete ${skill.name}`}>
                    Delete
                  </Button>
                </div>
              </div>
            </li>
          ))}
        </ul>
        <form onSubmit={save} className="mt-4 space-y-3">
          <TextField label="Name" value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.target.value })} required maxLength={64} pattern="[a-z0-9]+(-[a-z0-9]+)*" />
          <TextField label="Description (when to use it)" value={draft.description} onChange={(event) => setDraft({ ...draft, description: event.target.value })} required maxLength={1024} />
          <label className="block space-y-1 text-sm">
            <span className="font-medium">Instructions (Markdown)</span>
            <textarea className={`${inputClassName} min-h-40 font-mono`} value={draft.body} onChange={(event) => setDraft({ ...draft, body: event.target.value })} required />
          </label>
          <Button type="submit" pending={pending} disabled={pending}>
            Save skill
          </Button>
          {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
        </form>
      </div>
    </div>
  );
}
