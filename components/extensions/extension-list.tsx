"use client";

import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge, type TBadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { UploadForm } from "./upload-form";
import { useExtensionList } from "./use-extension-list";

/**
 * The admin list of an extension kind (plugins and skills; MCP servers are meant to join): upload
 * a bundle (scanned, nothing enabled until an admin says so), then one row per extension with its
 * status, where it comes from, what is wrong with it, Enable / Disable, and a details panel that
 * the kind fills in (extension-details.tsx holds its shared parts).
 */
export type TExtensionSummary = {
  /** Names the row in its URL (`${endpoint}/${key}`) and its test id (`${kind}-${key}`). */
  key: string;
  /** The name as shown, and as the toggle's accessible name says it. */
  title: ReactNode;
  name: string;
  status: string;
  statusTone: TBadgeTone;
  /** Short facts after the status: the source, who may use it. */
  facts: string[];
  description?: string;
  problems: { tone: "error" | "warning"; text: ReactNode }[];
  /** A newer upload waiting for review; `version` when the kind has versions. */
  staged?: { version?: string | null; verdict: string; high: number } | null;
  /** Whether Enable / Disable applies (not to an invalid or a merely staged extension). */
  toggleable: boolean;
};

const PROBLEM_TONES = { error: "text-red-700 dark:text-red-400", warning: "text-amber-800 dark:text-amber-300" };

export function ExtensionList<TRow extends { enabled: boolean }>({
  kind,
  label,
  endpoint,
  listField,
  rowField,
  initial,
  summarize,
  details,
}: {
  kind: "plugin" | "skill";
  /** The list's accessible name ("Plugins"). */
  label: string;
  endpoint: string;
  listField: string;
  rowField: string;
  initial: TRow[];
  summarize: (row: TRow) => TExtensionSummary;
  details: (row: TRow, onChanged: (row: TRow) => void) => ReactNode;
}) {
  const { rows, error, pending, refresh, replace, toggle } = useExtensionList<TRow>({ initial, endpoint, listField, rowField, key: (row) => summarize(row).key });

  return (
    <div className="space-y-6">
      <div>
        <h3 className="mb-2 text-sm font-semibold">Upload a {kind}</h3>
        <UploadForm endpoint={endpoint} kind={kind} onUploaded={() => void refresh()} />
      </div>
      {error ? <Alert>{error}</Alert> : null}
      <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-label={label}>
        {rows.map((row) => {
          const summary = summarize(row);
          const verb = row.enabled ? "Disable" : "Enable";
          return (
            <li key={summary.key} className="py-3" data-testid={`${kind}-${summary.key}`}>
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-2">
                    {summary.title}
                    <Badge tone={summary.statusTone}>{summary.status}</Badge>
                    {summary.facts.map((fact) => (
                      <span key={fact} className="text-xs text-neutral-500">
                        {fact}
                      </span>
                    ))}
                  </p>
                  {summary.description ? <p className="mt-1 text-sm text-neutral-700 dark:text-neutral-300">{summary.description}</p> : null}
                  {summary.problems.map((problem, index) => (
                    <p key={index} className={`mt-1 text-sm break-words ${PROBLEM_TONES[problem.tone]}`}>
                      {problem.text}
                    </p>
                  ))}
                  {summary.staged ? (
                    <p className="mt-1 text-sm text-blue-800 dark:text-blue-300">
                      {summary.staged.version === undefined ? "A new version" : `Version ${summary.staged.version ?? "?"}`} waits for review ({summary.staged.verdict}
                      {summary.staged.high ? `, ${summary.staged.high} high-risk` : ""}).
                    </p>
                  ) : null}
                </div>
                {summary.toggleable ? (
                  <Button size="sm" variant={row.enabled ? "secondary" : "primary"} pending={pending === summary.key} disabled={pending !== null} onClick={() => void toggle(row)} aria-label={`${verb} ${summary.name}`}>
                    {verb}
                  </Button>
                ) : null}
              </div>
              {details(row, replace)}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
