"use client";

import { useCallback, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { ScanReport, type TReport } from "@/components/extensions/scan-report";
import { UploadForm } from "@/components/extensions/upload-form";
import { useExtensionList } from "@/components/extensions/use-extension-list";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { TAdminSkill } from "@/lib/skills/skill-admin";

// The server's own type (types only, erased from the browser bundle).
export type TAdminSkillRow = TAdminSkill;

type TRevision = { sha256: string; version: string | null; status: string; createdAt: string; reviewedAt: string | null; report: TReport };

const STATUS_STYLE: Record<TAdminSkillRow["status"], string> = {
  enabled: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200",
  disabled: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
  staged: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200",
  invalid: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
};

function SkillDetails({ skill, users, onChanged }: { skill: TAdminSkillRow; users: { id: string; email: string }[]; onChanged: (skill: TAdminSkillRow) => void }) {
  const [revisions, setRevisions] = useState<TRevision[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [acknowledge, setAcknowledge] = useState(false);
  const [chosen, setChosen] = useState<string[]>(skill.allowedUserIds);

  const load = useCallback(async () => {
    try {
      setRevisions((await apiRequest<{ revisions: TRevision[] }>(`/api/admin/skills/${skill.name}`)).revisions);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }, [skill.name]);

  const patch = async (body: Record<string, unknown>) => {
    setPending(true);
    setError(null);
    try {
      const { skill: updated } = await apiRequest<{ skill: TAdminSkillRow }>(`/api/admin/skills/${skill.name}`, { method: "PATCH", body });
      onChanged(updated);
      await load();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  };

  return (
    <details className="mt-2" onToggle={(event) => (event.currentTarget.open && !revisions ? void load() : undefined)}>
      <summary className="cursor-pointer text-sm text-blue-700 dark:text-blue-400">Review, visibility and revisions</summary>
      <div className="mt-3 space-y-4">
        {error ? <Alert>{error}</Alert> : null}
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
          <ul className="space-y-3">
            {revisions.map((revision) => (
              <li key={revision.sha256} className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-800">
                <p className="text-sm">
                  <span className="font-medium">{revision.status}</span> · uploaded {new Date(revision.createdAt).toLocaleString()}
                  {revision.sha256 === skill.sha256 ? " · in use" : ""}
                </p>
                <ScanReport report={revision.report} title="Report" />
                {revision.sha256 !== skill.sha256 && revision.status !== "discarded" ? (
                  <div className="mt-2 flex flex-wrap items-center gap-3">
                    {revision.report.findings.some((finding) => finding.severity === "high") && revision.status === "staged" ? (
                      <label className="inline-flex items-center gap-1.5 text-sm">
                        <input type="checkbox" checked={acknowledge} onChange={(event) => setAcknowledge(event.target.checked)} />I read the high-risk findings and trust this version
                      </label>
                    ) : null}
                    <Button size="sm" disabled={pending} onClick={() => void patch({ enabled: true, sha256: revision.sha256, acknowledgeRisks: acknowledge })}>
                      Enable this version
                    </Button>
                  </div>
                ) : null}
              </li>
            ))}
            {!revisions.length ? <li className="text-sm text-neutral-500">No uploads: this skill comes with xclaw{skill.pluginId ? ` (plugin ${skill.pluginId})` : ""}.</li> : null}
          </ul>
        )}
      </div>
    </details>
  );
}

export function SkillsAdmin({ initialSkills, users }: { initialSkills: TAdminSkillRow[]; users: { id: string; email: string }[] }) {
  const { rows: skills, error, pending, refresh, replace, toggle } = useExtensionList<TAdminSkillRow>({
    initial: initialSkills,
    endpoint: "/api/admin/skills",
    listField: "skills",
    rowField: "skill",
    key: (row) => row.name,
  });

  return (
    <div className="space-y-6">
      <div>
        <h3 className="mb-2 text-sm font-semibold">Upload a skill</h3>
        <UploadForm endpoint="/api/admin/skills" kind="skill" onUploaded={() => void refresh()} />
      </div>
      {error ? <Alert>{error}</Alert> : null}
      <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-label="Skills">
        {skills.map((skill) => (
          <li key={skill.name} className="py-3" data-testid={`skill-${skill.name}`}>
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-mono font-medium">{skill.name}</span>
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[skill.status]}`}>{skill.status}</span>
                  <span className="text-xs text-neutral-500">{skill.source === "plugin" ? `from plugin ${skill.pluginId}` : skill.source}</span>
                  {skill.visibility !== "everyone" ? <span className="text-xs text-neutral-500">{skill.visibility === "admins" ? "admins only" : `${skill.allowedUserIds.length} people`}</span> : null}
                </p>
                <p className="mt-1 text-sm text-neutral-700 dark:text-neutral-300">{skill.description || "—"}</p>
                {skill.lastError ? <p className="mt-1 text-sm text-red-700 dark:text-red-400">{skill.lastError}</p> : null}
                {skill.missing.length ? <p className="mt-1 text-sm text-amber-800 dark:text-amber-300">Unavailable here: requires {skill.missing.join(", ")}</p> : null}
                {skill.staged ? (
                  <p className="mt-1 text-sm text-blue-800 dark:text-blue-300">
                    A new version waits for review ({skill.staged.verdict}
                    {skill.staged.high ? `, ${skill.staged.high} high-risk` : ""}).
                  </p>
                ) : null}
              </div>
              {skill.status !== "staged" && skill.status !== "invalid" ? (
                <Button size="sm" variant={skill.enabled ? "secondary" : "primary"} pending={pending === skill.name} disabled={pending !== null} onClick={() => void toggle(skill)} aria-label={`${skill.enabled ? "Disable" : "Enable"} ${skill.name}`}>
                  {skill.enabled ? "Disable" : "Enable"}
                </Button>
              ) : null}
            </div>
            <SkillDetails skill={skill} users={users} onChanged={replace} />
          </li>
        ))}
      </ul>
    </div>
  );
}
