"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { ExtensionDetails, RevisionList, type TRevision } from "@/components/extensions/extension-details";
import { ExtensionList, type TExtensionSummary } from "@/components/extensions/extension-list";
import { useAction } from "@/components/forms/use-action";
import type { TBadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { TAdminSkill } from "@/lib/skills/skill-admin";

// The server's own type (types only, erased from the browser bundle).
export type TAdminSkillRow = TAdminSkill;

const STATUS_TONES: Record<TAdminSkillRow["status"], TBadgeTone> = { enabled: "green", disabled: "neutral", staged: "blue", invalid: "red" };

function SkillDetails({ skill, users, onChanged }: { skill: TAdminSkillRow; users: { id: string; email: string }[]; onChanged: (skill: TAdminSkillRow) => void }) {
  const [revisions, setRevisions] = useState<TRevision[] | null>(null);
  const [chosen, setChosen] = useState<string[]>(skill.allowedUserIds);
  const { busy: pending, error, run, fail } = useAction();

  const load = async () => {
    try {
      setRevisions((await apiRequest<{ revisions: TRevision[] }>(`/api/admin/skills/${skill.name}`)).revisions);
    } catch (caught) {
      fail(caught);
    }
  };

  const patch = (body: Record<string, unknown>) =>
    run("patch", async () => {
      const { skill: updated } = await apiRequest<{ skill: TAdminSkillRow }>(`/api/admin/skills/${skill.name}`, { method: "PATCH", body });
      onChanged(updated);
      await load();
    });

  return (
    <ExtensionDetails summary="Review, visibility and revisions" loaded={revisions !== null} onOpen={() => void load()} error={error}>
      <fieldset className="space-y-2 text-sm">
        <legend className="font-medium">Who may use it</legend>
        {(["everyone", "admins", "users"] as const).map((visibility) => (
          <label key={visibility} className="mr-4 inline-flex items-center gap-1.5">
            <input type="radio" name={`visibility-${skill.name}`} checked={skill.visibility === visibility} disabled={pending} onChange={() => void patch({ visibility, ...(visibility === "users" ? { userIds: chosen } : {}) })} />
            {visibility === "everyone" ? "Everyone" : visibility === "admins" ? "Admins only" : "Chosen people"}
          </label>
        ))}
        {skill.visibility === "users" ? (
          <div className="flex flex-wrap items-end gap-2">
            <select multiple aria-label="People who may use this skill" className="min-w-64 rounded-lg border border-neutral-300 p-1 dark:border-neutral-700 dark:bg-neutral-900" value={chosen} onChange={(event) => setChosen([...event.target.selectedOptions].map((option) => option.value))}>
              {users.map((user) => (
                <option key={user.id} value={user.id}>
                  {user.email}
                </option>
              ))}
            </select>
            <Button size="sm" variant="secondary" disabled={pending} onClick={() => void patch({ visibility: "users", userIds: chosen })}>
              Save people
            </Button>
          </div>
        ) : null}
      </fieldset>
      {revisions === null ? (
        <p className="text-sm text-neutral-500">Loading revisions…</p>
      ) : (
        <RevisionList
          revisions={revisions}
          versioned={false}
          inUse={skill.sha256}
          disabled={pending}
          onEnable={(sha256, acknowledgeRisks) => void patch({ enabled: true, sha256, acknowledgeRisks })}
          empty={`No uploads: this skill comes with xclaw${skill.pluginId ? ` (plugin ${skill.pluginId})` : ""}.`}
        />
      )}
    </ExtensionDetails>
  );
}

/** What a skill's row says about it (extension-list.tsx draws the row). */
function summarize(skill: TAdminSkillRow): TExtensionSummary {
  return {
    key: skill.name,
    title: <span className="font-mono font-medium">{skill.name}</span>,
    name: skill.name,
    status: skill.status,
    statusTone: STATUS_TONES[skill.status],
    facts: [skill.source === "plugin" ? `from plugin ${skill.pluginId}` : skill.source, ...(skill.visibility === "everyone" ? [] : [skill.visibility === "admins" ? "admins only" : `${skill.allowedUserIds.length} people`])],
    description: skill.description,
    problems: [
      ...(skill.lastError ? [{ tone: "error" as const, text: skill.lastError }] : []),
      ...(skill.missing.length ? [{ tone: "warning" as const, text: `Unavailable here: requires ${skill.missing.join(", ")}` }] : []),
    ],
    staged: skill.staged,
    toggleable: skill.status !== "staged" && skill.status !== "invalid",
  };
}

export function SkillsAdmin({ initialSkills, users }: { initialSkills: TAdminSkillRow[]; users: { id: string; email: string }[] }) {
  return (
    <ExtensionList
      kind="skill"
      label="Skills"
      endpoint="/api/admin/skills"
      listField="skills"
      rowField="skill"
      initial={initialSkills}
      summarize={summarize}
      details={(skill, onChanged) => <SkillDetails skill={skill} users={users} onChanged={onChanged} />}
    />
  );
}
