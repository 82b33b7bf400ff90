"use client";

import { useEffect, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { Alert, FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import type { TEmbeddingAdminStatus } from "@/lib/wire/memory";

/** Admin → Memory: the embedding model, how many rows have its vectors, and Re-embed with progress. */
function Coverage({ label, coverage }: { label: string; coverage: TEmbeddingAdminStatus["memories"] }) {
  const fraction = coverage.total ? coverage.current / coverage.total : 1;
  return (
    <div>
      <div className="flex justify-between text-sm text-neutral-800 dark:text-neutral-200">
        <span>{label}</span>
        <span>
          {coverage.current} of {coverage.total} embedded
          {coverage.otherModel ? ` · ${coverage.otherModel} of another model` : ""}
          {coverage.missing ? ` · ${coverage.missing} without a vector` : ""}
        </span>
      </div>
      <div className="mt-1 h-2 overflow-hidden rounded-full bg-neutral-200 dark:bg-neutral-800" role="progressbar" aria-label={`${label} embedded`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(fraction * 100)}>
        <div className="h-full bg-green-600 dark:bg-green-400" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
    </div>
  );
}

export function MemoryAdmin({ initialStatus }: { initialStatus: TEmbeddingAdminStatus }) {
  const [status, setStatus] = useState(initialStatus);
  const { busy, feedback, run, fail } = useAction();
  const running = status.lastRun && ["queued", "running", "sleeping"].includes(status.lastRun.status);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      apiRequest<TEmbeddingAdminStatus>("/api/admin/memory").then(setStatus, fail);
    }, 1_500);
    return () => clearInterval(timer);
  }, [running, fail]);

  const reembed = () =>
    run("reembed", async () => {
      await apiRequest("/api/admin/memory/reembed", { method: "POST" });
      setStatus(await apiRequest<TEmbeddingAdminStatus>("/api/admin/memory"));
    });

  const stale = status.memories.total - status.memories.current + status.chunks.total - status.chunks.current;
  return (
    <div className="space-y-4">
      {status.configured ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          Embedding model: <strong>{status.model}</strong> ({status.dimensions} dimensions). Rows of another model are found by full text only until they are re-embedded.
        </p>
      ) : (
        <Alert tone="info" role="note">
          No embedding provider is configured: memory and knowledge search are full-text only. Set EMBEDDINGS_BASE_URL / EMBEDDINGS_API_KEY (or OPENAI_BASE_URL / OPENAI_API_KEY) and restart; existing rows are then embedded by the backfill.
        </Alert>
      )}
      <Coverage label="Memories" coverage={status.memories} />
      <Coverage label="Knowledge chunks" coverage={status.chunks} />
      {status.lastRun ? (
        <p className="text-xs text-neutral-500 dark:text-neutral-400" aria-live="polite">
          Last {status.lastRun.jobId === "memory.reembed" ? "re-embed" : "backfill"}: {status.lastRun.status}, started <DateTime iso={status.lastRun.createdAt} />
          {status.lastRun.error ? ` — ${status.lastRun.error}` : ""}
        </p>
      ) : null}
      <FeedbackAlert feedback={feedback} />
      <Button onClick={reembed} pending={busy || Boolean(running)} disabled={!status.configured || (!stale && !running)}>
        {running ? "Re-embedding…" : `Re-embed ${stale} rows`}
      </Button>
    </div>
  );
}
