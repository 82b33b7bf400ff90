"use client";

import type { TScanFinding, TScanReport } from "@/lib/bundles/scan-bundle";

/** A bundle's scan report: verdict, findings with where they are, and the files it holds (the server's types, erased from the bundle). */
export type TFinding = TScanFinding;
export type TReport = TScanReport;

const SEVERITY: Record<TFinding["severity"], string> = {
  blocked: "bg-red-700 text-white",
  high: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  medium: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  info: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
};

const VERDICT: Record<TReport["verdict"], string> = {
  refused: "Refused: nothing was stored.",
  flagged: "Flagged: read the high-risk findings before you enable it.",
  clean: "No high-risk findings. The scan is an aid, not a guarantee: read the instructions too.",
};

export function ScanReport({ report, title = "Scan report" }: { report: TReport; title?: string }) {
  return (
    <div className="space-y-3 text-sm" data-testid="scan-report">
      <div>
        <h3 className="font-semibold text-neutral-900 dark:text-neutral-100">{title}</h3>
        <p className="mt-1 text-neutral-700 dark:text-neutral-300">{VERDICT[report.verdict]}</p>
        <p className="mt-1 font-mono text-xs break-all text-neutral-500">
          SHA-256 {report.sha256} · {report.fileCount} file{report.fileCount === 1 ? "" : "s"} · {Math.ceil(report.totalBytes / 1024)} KiB
        </p>
      </div>
      {report.findings.length ? (
        <ul className="space-y-2">
          {report.findings.map((finding, index) => (
            <li key={index} className="rounded-lg border border-neutral-200 p-2 dark:border-neutral-800">
              <div className="flex flex-wrap items-center gap-2">
                <span className={`rounded px-1.5 py-0.5 text-xs font-semibold uppercase ${SEVERITY[finding.severity]}`}>{finding.severity}</span>
                <span className="font-mono text-xs">{finding.rule}</span>
                {finding.path ? (
                  <span className="font-mono text-xs break-all text-neutral-500">
                    {finding.path}
                    {finding.line ? `:${finding.line}` : ""}
                  </span>
                ) : null}
              </div>
              <p className="mt-1 text-neutral-700 dark:text-neutral-300">{finding.detail}</p>
              {finding.excerpt ? <pre className="mt-1 overflow-x-auto rounded bg-neutral-100 p-1.5 text-xs whitespace-pre-wrap dark:bg-neutral-800">{finding.excerpt}</pre> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-neutral-600 dark:text-neutral-400">No findings.</p>
      )}
      <details>
        <summary className="cursor-pointer text-neutral-600 dark:text-neutral-400">Files</summary>
        <ul className="mt-1 font-mono text-xs">
          {report.files.map((file) => (
            <li key={file.path} className="break-all">
              {file.path} ({file.bytes} B)
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
