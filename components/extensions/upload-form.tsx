"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ScanReport, type TReport } from "./scan-report";

/**
 * Upload a plugin or skill bundle: a .zip, a SKILL.md, or a whole folder. The server stages and
 * scans it; the report is shown here, and nothing is enabled until an admin enables it.
 */
export type TUploadResult = { status: "staged" | "approved" | "refused"; name?: string; id?: string; sha256: string; report: TReport };

export function UploadForm({ endpoint, kind, onUploaded }: { endpoint: string; kind: "plugin" | "skill"; onUploaded: (result: TUploadResult) => void }) {
  const [files, setFiles] = useState<{ file: File; path: string }[]>([]);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<TUploadResult | null>(null);
  const fileId = useId();
  const folderId = useId();

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!files.length) return setError("Choose a .zip, a SKILL.md or a folder first.");
    setPending(true);
    setError(null);
    setResult(null);
    const form = new FormData();
    for (const { file, path } of files) form.append("file", file, path);
    try {
      const response = await fetch(endpoint, { method: "POST", body: form, headers: { accept: "application/json" } });
      const body = (await response.json().catch(() => ({}))) as Partial<TUploadResult> & { error?: { message?: string } };
      if (body.report) {
        setResult(body as TUploadResult);
        if (response.ok) onUploaded(body as TUploadResult);
      }
      if (!response.ok) setError(body.error?.message ?? `The upload failed (HTTP ${response.status}).`);
    } catch {
      setError("The upload did not reach the server. Check your connection and try again.");
    } finally {
      setPending(false);
    }
  };

  return (
    <form onSubmit={submit} className="space-y-3">
      <div className="flex flex-wrap gap-4 text-sm">
        <label htmlFor={fileId} className="flex flex-col gap-1">
          <span className="font-medium">A .zip{kind === "skill" ? " or a SKILL.md" : ""}</span>
          <input id={fileId} type="file" accept={kind === "skill" ? ".zip,.md" : ".zip"} onChange={(event) => setFiles([...(event.target.files ?? [])].map((file) => ({ file, path: file.name })))} />
        </label>
        <label htmlFor={folderId} className="flex flex-col gap-1">
          <span className="font-medium">or a folder</span>
          <input
            id={folderId}
            type="file"
            webkitdirectory=""
            multiple
            onChange={(event) => setFiles([...(event.target.files ?? [])].map((file) => ({ file, path: file.webkitRelativePath || file.name })))}
          />
        </label>
      </div>
      <Button type="submit" pending={pending} disabled={pending}>
        Upload and scan
      </Button>
      {error ? <Alert>{error}</Alert> : null}
      {result ? (
        <div className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-800">
          <p className="mb-2 text-sm font-medium">
            {result.status === "refused" ? "Refused" : result.status === "approved" ? "This exact version was already reviewed and approved." : `Staged ${result.name ?? result.id}: review the report, then enable it below.`}
          </p>
          <ScanReport report={result.report} />
        </div>
      ) : null}
    </form>
  );
}
