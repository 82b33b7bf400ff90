"use client";

import { useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { ScanReport, type TReport } from "./scan-report";

/**
 * The parts every extension's details panel shares: a disclosure that loads what it shows the
 * first time it opens, and the uploaded versions with their scan reports, each one enabled by its
 * exact SHA-256 (a high-risk finding must be acknowledged first).
 */
export function ExtensionDetails({ summary, loaded, onOpen, error, children }: { summary: string; loaded: boolean; onOpen: () => void; error?: string | null; children: ReactNode }) {
  return (
    <details className="mt-2" onToggle={(event) => (event.currentTarget.open && !loaded ? onOpen() : undefined)}>
      <summary className="cursor-pointer text-sm text-blue-700 dark:text-blue-400">{summary}</summary>
      <div className="mt-3 space-y-4 text-sm">
        {error ? <Alert>{error}</Alert> : null}
        {children}
      </div>
    </details>
  );
}

export type TRevision = { sha256: string; version: string | null; status: string; createdAt: string; report: TReport };

export function RevisionList({
  revisions,
  versioned,
  inUse,
  disabled,
  onEnable,
  empty,
}: {
  revisions: TRevision[];
  /** Whether the kind's bundles carry a version of their own (a plugin's manifest does). */
  versioned: boolean;
  /** The SHA-256 of the version in use. */
  inUse: string | null;
  disabled: boolean;
  onEnable: (sha256: string, acknowledgeRisks: boolean) => void;
  /** Said instead of an empty list. */
  empty: ReactNode;
}) {
  const [acknowledge, setAcknowledge] = useState(false);
  if (!revisions.length) return <p className="text-neutral-500">{empty}</p>;
  return (
    <ul className="space-y-3" aria-label="Uploaded versions">
      {revisions.map((revision) => (
        <li key={revision.sha256} className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-800">
          <p>
            {!versioned ? (
              <span className="font-medium">{revision.status}</span>
            ) : (
              <>
                <span className="font-medium">{revision.version ?? "?"}</span> · {revision.status}
              </>
            )}
            {" · uploaded "}
            <DateTime iso={revision.createdAt} />
            {revision.sha256 === inUse ? " · in use" : ""}
          </p>
          <ScanReport report={revision.report} title="Report" />
          {revision.sha256 !== inUse && revision.status !== "discarded" ? (
            <div className="mt-2 flex flex-wrap items-center gap-3">
              {revision.status === "staged" && revision.report.findings.some((finding) => finding.severity === "high") ? (
                <label className="inline-flex items-center gap-1.5">
                  <input type="checkbox" checked={acknowledge} onChange={(event) => setAcknowledge(event.target.checked)} />I read the high-risk findings and trust this version
                </label>
              ) : null}
              <Button size="sm" disabled={disabled} onClick={() => onEnable(revision.sha256, acknowledge)}>
                Enable this version
              </Button>
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
