"use client";

import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { apiRequest, ApiRequestError, errorMessage } from "@/components/api-request";
import { ShownError, useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { inputClassName } from "@/components/ui/text-field";
import type { TKnowledgeBaseView, TKnowledgeDocumentView, TKnowledgeSearchResult, TSearchMode } from "@/lib/wire/memory";

/**
 * /knowledge: knowledge bases, their documents (upload, indexing status with progress, chunk counts,
 * re-index, delete) and a search box that shows the passages the agent would get, with citations.
 */
const STATUS_LABEL: Record<TKnowledgeDocumentView["status"], string> = { pending: "Waiting to index", indexing: "Indexing", ready: "Ready", failed: "Failed" };
const STATUS_TONE: Record<TKnowledgeDocumentView["status"], string> = {
  pending: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
  indexing: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-200",
  ready: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
};

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

async function uploadFile(knowledgeBaseId: string, file: File): Promise<TKnowledgeDocumentView> {
  const form = new FormData();
  form.append("file", file);
  let response: Response;
  try {
    response = await fetch(`/api/knowledge/${knowledgeBaseId}/documents`, { method: "POST", body: form, credentials: "same-origin" });
  } catch {
    throw new ApiRequestError("Could not reach the server. Check your connection and try again.", 0, "network");
  }
  const body = (await response.json().catch(() => undefined)) as { document?: TKnowledgeDocumentView; error?: { message?: string; code?: string } } | undefined;
  if (!response.ok || !body?.document) throw new ApiRequestError(body?.error?.message ?? `The upload failed (HTTP ${response.status}).`, response.status, body?.error?.code ?? "unknown");
  return body.document;
}

function DocumentRow({ knowledgeBaseId, document, onChanged, onDeleted }: { knowledgeBaseId: string; document: TKnowledgeDocumentView; onChanged: (document: TKnowledgeDocumentView) => void; onDeleted: (id: string) => void }) {
  const { pending, feedback, run } = useAction();
  const deletion = useConfirmation<TKnowledgeDocumentView>();
  const busy = document.status === "pending" || document.status === "indexing";

  return (
    <li className="py-3" data-document={document.filename}>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <p className="truncate text-sm font-medium text-neutral-900 dark:text-neutral-100" title={document.filename}>
            {document.filename}
          </p>
          <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-neutral-500 dark:text-neutral-400">
            <span className={`rounded-full px-2 py-0.5 font-medium ${STATUS_TONE[document.status]}`}>{STATUS_LABEL[document.status]}</span>
            <span>{document.chunkCount} chunks</span>
            <span>{formatSize(document.byteSize)}</span>
            {document.pageCount ? <span>{document.pageCount} pages</span> : null}
            <span>doc_id: {document.key}</span>
          </p>
          {busy ? (
            <div className="mt-2 h-1.5 w-full max-w-xs overflow-hidden rounded-full bg-neutral-200 dark:bg-neutral-800" role="progressbar" aria-label={`Indexing ${document.filename}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(document.progress * 100)}>
              <div className="h-full bg-blue-600 transition-all dark:bg-blue-400" style={{ width: `${Math.max(3, Math.round(document.progress * 100))}%` }} />
            </div>
          ) : null}
          {document.error ? <p className={`mt-1 text-xs ${document.status === "failed" ? "text-red-700 dark:text-red-400" : "text-amber-700 dark:text-amber-300"}`}>{document.error}</p> : null}
        </div>
        <div className="flex shrink-0 gap-1">
          <Button
            size="sm"
            variant="ghost"
            disabled={busy}
            pending={pending === "reindex"}
            aria-label={`Re-index ${document.filename}`}
            onClick={() =>
              run("reindex", async () => {
                const result = await apiRequest<{ document: TKnowledgeDocumentView }>(`/api/knowledge/${knowledgeBaseId}/documents/${document.id}/reindex`, { method: "POST" });
                onChanged(result.document);
              })
            }
          >
            Re-index
          </Button>
          <Button size="sm" variant="ghost" aria-label={`Delete ${document.filename}`} onClick={() => deletion.ask(document)}>
            Delete
          </Button>
        </div>
      </div>
      <FeedbackAlert feedback={feedback} className="mt-2" />
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${document.filename}?`}
        confirmLabel="Delete"
        destructive
        onConfirm={deletion.confirm(async () => {
          await apiRequest(`/api/knowledge/${knowledgeBaseId}/documents/${document.id}`, { method: "DELETE" });
          onDeleted(document.id);
        })}
      >
        The document, its chunks and its vectors are deleted; the agent will no longer find it.
      </ConfirmDialog>
    </li>
  );
}

function Documents({ base, onCountsChanged }: { base: TKnowledgeBaseView; onCountsChanged: () => void }) {
  const [documents, setDocuments] = useState<TKnowledgeDocumentView[]>();
  const { busy: uploading, feedback, run, fail } = useAction();
  const deletion = useConfirmation<TKnowledgeBaseView>();
  const fileInput = useRef<HTMLInputElement>(null);

  const load = useCallback(async () => {
    try {
      const result = await apiRequest<{ documents: TKnowledgeDocumentView[] }>(`/api/knowledge/${base.id}/documents`);
      setDocuments(result.documents);
    } catch (failure) {
      fail(failure);
    }
  }, [base.id, fail]);

  useEffect(() => {
    let cancelled = false;
    apiRequest<{ documents: TKnowledgeDocumentView[] }>(`/api/knowledge/${base.id}/documents`).then(
      (result) => {
        if (!cancelled) setDocuments(result.documents);
      },
      (failure: unknown) => {
        if (!cancelled) fail(failure);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [base.id, fail]);

  // While anything is indexing, follow its progress.
  const busy = documents?.some((document) => document.status === "pending" || document.status === "indexing");
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => void load().then(onCountsChanged), 1_500);
    return () => clearInterval(timer);
  }, [busy, load, onCountsChanged]);

  // Each file on its own: one refused file does not stop the others, and every refusal is said.
  const upload = (event: FormEvent) => {
    event.preventDefault();
    void run("upload", async () => {
      const files = [...(fileInput.current?.files ?? [])];
      if (!files.length) throw new ShownError("Choose a file first.");
      const problems: string[] = [];
      for (const file of files) {
        try {
          const document = await uploadFile(base.id, file);
          setDocuments((current) => [document, ...(current ?? []).filter((item) => item.id !== document.id)]);
        } catch (failure) {
          problems.push(errorMessage(failure));
        }
      }
      if (fileInput.current) fileInput.current.value = "";
      onCountsChanged();
      if (problems.length) throw new ShownError(problems.join(" "));
    });
  };

  return (
    <div className="space-y-4">
      <form onSubmit={upload} className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <label htmlFor={`upload-${base.id}`} className="sr-only">
          Document to upload
        </label>
        <input
          ref={fileInput}
          id={`upload-${base.id}`}
          type="file"
          multiple
          accept=".txt,.text,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf"
          className="block w-full text-sm text-neutral-700 file:mr-3 file:rounded-lg file:border file:border-neutral-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-medium dark:text-neutral-300 dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100"
        />
        <Button type="submit" pending={uploading} className="shrink-0">
          Upload
        </Button>
      </form>
      <p className="text-xs text-neutral-500 dark:text-neutral-400">Text, Markdown, HTML or PDF. Indexing runs in the background; you can leave this page.</p>
      <FeedbackAlert feedback={feedback} />
      {documents === undefined ? (
        <p className="text-sm text-neutral-500">Loading…</p>
      ) : documents.length ? (
        <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-label={`Documents in ${base.name}`}>
          {documents.map((document) => (
            <DocumentRow
              key={document.id}
              knowledgeBaseId={base.id}
              document={document}
              onChanged={(changed) => setDocuments((current) => current?.map((item) => (item.id === changed.id ? changed : item)))}
              onDeleted={(id) => {
                setDocuments((current) => current?.filter((item) => item.id !== id));
                onCountsChanged();
              }}
            />
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No documents yet.</p>
      )}
      <div className="border-t border-neutral-200 pt-3 dark:border-neutral-800">
        <Button size="sm" variant="danger" onClick={() => deletion.ask(base)}>
          Delete knowledge base
        </Button>
      </div>
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete “${base.name}”?`}
        confirmLabel="Delete"
        destructive
        onConfirm={deletion.confirm(async () => {
          await apiRequest(`/api/knowledge/${base.id}`, { method: "DELETE" });
          onCountsChanged();
        })}
      >
        All its documents, chunks and vectors are deleted.
      </ConfirmDialog>
    </div>
  );
}

export function KnowledgeManager({ initialBases }: { initialBases: TKnowledgeBaseView[] }) {
  const [bases, setBases] = useState(initialBases);
  const [selected, setSelected] = useState<string | undefined>(initialBases[0]?.id);
  const [name, setName] = useState("");
  const [query, setQuery] = useState("");
  const { pending, feedback, run, submit, fail } = useAction();
  const [results, setResults] = useState<{ results: TKnowledgeSearchResult[]; mode: TSearchMode; query: string }>();

  const refresh = useCallback(async () => {
    try {
      const result = await apiRequest<{ knowledgeBases: TKnowledgeBaseView[] }>("/api/knowledge");
      setBases(result.knowledgeBases);
      setSelected((current) => (current && result.knowledgeBases.some((base) => base.id === current) ? current : result.knowledgeBases[0]?.id));
    } catch (failure) {
      fail(failure);
    }
  }, [fail]);

  const create = submit("create", async () => {
    const created = await apiRequest<{ knowledgeBase: { id: string; name: string } }>("/api/knowledge", { method: "POST", body: { name } });
    setName("");
    await refresh();
    setSelected(created.knowledgeBase.id);
  });

  const search = (event: FormEvent) => {
    event.preventDefault();
    if (!query.trim()) return;
    void run("search", async () => {
      const found = await apiRequest<{ results: TKnowledgeSearchResult[]; mode: TSearchMode }>(`/api/knowledge/search?query=${encodeURIComponent(query)}${selected ? `&kb=${selected}` : ""}`);
      setResults({ ...found, query });
    });
  };

  const current = bases.find((base) => base.id === selected);
  return (
    <div className="space-y-6">
      <form onSubmit={create} className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor="new-knowledge-base" className="sr-only">
          New knowledge base name
        </label>
        <input id="new-knowledge-base" className={inputClassName} value={name} onChange={(event) => setName(event.target.value)} placeholder="New knowledge base, e.g. Team handbook" maxLength={100} required />
        <Button type="submit" pending={pending === "create"} className="shrink-0">
          Create
        </Button>
      </form>
      <FeedbackAlert feedback={feedback} />
      {bases.length ? (
        <div className="space-y-4">
          <div role="tablist" aria-label="Knowledge bases" className="flex flex-wrap gap-2">
            {bases.map((base) => (
              <button
                key={base.id}
                type="button"
                role="tab"
                aria-selected={base.id === selected}
                onClick={() => {
                  setSelected(base.id);
                  setResults(undefined);
                }}
                className={[
                  "rounded-lg border px-3 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-blue-600",
                  base.id === selected
                    ? "border-neutral-900 bg-neutral-900 text-white dark:border-neutral-100 dark:bg-neutral-100 dark:text-neutral-900"
                    : "border-neutral-300 text-neutral-800 hover:bg-neutral-100 dark:border-neutral-700 dark:text-neutral-200 dark:hover:bg-neutral-800",
                ].join(" ")}
              >
                {base.name} <span className="opacity-70">· {base.documentCount} docs · {base.chunkCount} chunks</span>
              </button>
            ))}
          </div>
          {current ? (
            <div role="tabpanel" aria-label={current.name} className="rounded-xl border border-neutral-200 p-4 dark:border-neutral-800">
              <Documents key={current.id} base={current} onCountsChanged={refresh} />
            </div>
          ) : null}
          <form onSubmit={search} role="search" className="flex gap-2">
            <label htmlFor="knowledge-search" className="sr-only">
              Search this knowledge base
            </label>
            <input id="knowledge-search" type="search" className={inputClassName} value={query} onChange={(event) => setQuery(event.target.value)} placeholder={`Search ${current?.name ?? "your documents"}`} />
            <Button type="submit" variant="secondary" pending={pending === "search"}>
              Search
            </Button>
          </form>
          {results ? (
            <section aria-label="Search results" className="space-y-3">
              <p className="text-sm text-neutral-600 dark:text-neutral-400" aria-live="polite">
                {results.results.length} passages for “{results.query}” ({results.mode} search)
              </p>
              {results.results.map((result) => (
                <article key={`${result.documentId}-${result.chunkIndex}`} className="rounded-lg border border-neutral-200 p-3 text-sm dark:border-neutral-800">
                  <p className="text-xs font-medium text-neutral-500 dark:text-neutral-400">
                    {result.filename} · chunk {result.chunkIndex}
                    {result.heading ? ` · ${result.heading}` : ""} · score {result.score.toFixed(4)}
                  </p>
                  <p className="mt-1 line-clamp-6 whitespace-pre-wrap text-neutral-800 dark:text-neutral-200">{result.content}</p>
                </article>
              ))}
            </section>
          ) : null}
        </div>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No knowledge bases yet. Create one, then upload documents the agent should answer from.</p>
      )}
    </div>
  );
}
