"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button, buttonClassName } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import { inputClassName } from "@/components/ui/text-field";
import type { TMemoryView, TSearchMode } from "@/lib/wire/memory";

/**
 * Settings → Memory: the user's memories with where each came from, search, add, edit, delete,
 * delete all, export as JSON, and the automatic-extraction switch.
 */
const textareaClassName = inputClassName.replace("h-10", "min-h-20 py-2");

function Origin({ memory }: { memory: TMemoryView }) {
  if (memory.origin === "user") return <span>Added by you</span>;
  const label = memory.origin === "agent" ? "Saved by the agent" : "Learned from a conversation";
  return (
    <span>
      {label}
      {memory.sessionId ? (
        <>
          {" in "}
          <Link href={`/chat/${memory.sessionId}`} className="underline underline-offset-2 hover:text-neutral-900 dark:hover:text-white">
            this chat
          </Link>
        </>
      ) : (
        " (the chat was deleted)"
      )}
    </span>
  );
}

function MemoryRow({ memory, onChanged, onDeleted }: { memory: TMemoryView; onChanged: (memory: TMemoryView) => void; onDeleted: (id: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [content, setContent] = useState(memory.content);
  const [tags, setTags] = useState(memory.tags.join(", "));
  const { busy, feedback, submit } = useAction();
  const deletion = useConfirmation<TMemoryView>();

  const save = submit("save", async () => {
    const result = await apiRequest<{ memory: TMemoryView }>(`/api/memories/${memory.id}`, {
      method: "PATCH",
      body: { content, tags: tags.split(",").map((tag) => tag.trim()).filter(Boolean) },
    });
    onChanged(result.memory);
    setEditing(false);
  });

  const remove = deletion.confirm(async () => {
    await apiRequest(`/api/memories/${memory.id}`, { method: "DELETE" });
    onDeleted(memory.id);
  });

  return (
    <li className="py-3" data-memory-id={memory.id}>
      {editing ? (
        <form onSubmit={save} className="space-y-2">
          <label className="sr-only" htmlFor={`memory-${memory.id}`}>
            Memory text
          </label>
          <textarea id={`memory-${memory.id}`} className={textareaClassName} value={content} onChange={(event) => setContent(event.target.value)} maxLength={20_000} required />
          <label className="sr-only" htmlFor={`tags-${memory.id}`}>
            Tags
          </label>
          <input id={`tags-${memory.id}`} className={inputClassName} value={tags} onChange={(event) => setTags(event.target.value)} placeholder="tags, comma separated" />
          <div className="flex gap-2">
            <Button type="submit" size="sm" pending={busy}>
              Save
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0">
            <p className="text-sm break-words whitespace-pre-wrap text-neutral-900 dark:text-neutral-100">{memory.content}</p>
            <p className="mt-1 text-xs text-neutral-500 dark:text-neutral-400">
              <Origin memory={memory} /> · <DateTime iso={memory.createdAt} />
              {memory.tags.length ? ` · ${memory.tags.map((tag) => `#${tag}`).join(" ")}` : ""}
            </p>
          </div>
          <div className="flex shrink-0 gap-1">
            <Button size="sm" variant="ghost" onClick={() => setEditing(true)} aria-label={`Edit memory: ${memory.content.slice(0, 60)}`}>
              Edit
            </Button>
            <Button size="sm" variant="ghost" onClick={() => deletion.ask(memory)} aria-label={`Delete memory: ${memory.content.slice(0, 60)}`}>
              Delete
            </Button>
          </div>
        </div>
      )}
      <FeedbackAlert feedback={feedback} className="mt-2" />
      <ConfirmDialog {...deletion.dialog} title="Delete this memory?" confirmLabel="Delete" destructive onConfirm={remove}>
        {memory.content}
      </ConfirmDialog>
    </li>
  );
}

export function MemoryManager({ initialMemories, initialAutoExtract }: { initialMemories: TMemoryView[]; initialAutoExtract: boolean }) {
  const [memories, setMemories] = useState(initialMemories);
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<{ query: string; memories: TMemoryView[]; mode: TSearchMode }>();
  const [newContent, setNewContent] = useState("");
  const [newTags, setNewTags] = useState("");
  const [autoExtract, setAutoExtract] = useState(initialAutoExtract);
  const { pending, feedback, run, submit, announce } = useAction();
  const deletionOfAll = useConfirmation<true>();

  const search = (event: FormEvent) => {
    event.preventDefault();
    if (!query.trim()) return setResults(undefined);
    void run("search", async () => {
      const found = await apiRequest<{ memories: TMemoryView[]; mode: TSearchMode }>(`/api/memories?query=${encodeURIComponent(query)}`);
      setResults({ query, ...found });
    });
  };

  const add = submit("add", async () => {
    const created = await apiRequest<{ memory: TMemoryView }>("/api/memories", {
      method: "POST",
      body: { content: newContent, tags: newTags.split(",").map((tag) => tag.trim()).filter(Boolean) },
    });
    setMemories((current) => [created.memory, ...current]);
    setNewContent("");
    setNewTags("");
    return "Memory saved.";
  });

  const changed = (memory: TMemoryView) => {
    setMemories((current) => current.map((item) => (item.id === memory.id ? memory : item)));
    setResults((current) => current && { ...current, memories: current.memories.map((item) => (item.id === memory.id ? memory : item)) });
  };
  const deleted = (id: string) => {
    setMemories((current) => current.filter((item) => item.id !== id));
    setResults((current) => current && { ...current, memories: current.memories.filter((item) => item.id !== id) });
  };

  const toggle = (enabled: boolean) =>
    void run("switch", async () => {
      const result = await apiRequest<{ settings: { autoExtract: boolean } }>("/api/memories/settings", { method: "PATCH", body: { autoExtract: enabled } });
      setAutoExtract(result.settings.autoExtract);
    });

  const deleteAll = deletionOfAll.confirm(async () => {
    const result = await apiRequest<{ deleted: number }>("/api/memories", { method: "DELETE" });
    setMemories([]);
    setResults(undefined);
    announce(`${result.deleted} memories deleted.`);
  });

  const shown = results?.memories ?? memories;
  return (
    <div className="space-y-5">
      <label className="flex items-start gap-3 text-sm text-neutral-800 dark:text-neutral-200">
        <input type="checkbox" className="mt-0.5 size-4 accent-neutral-900 dark:accent-neutral-100" checked={autoExtract} disabled={pending === "switch"} onChange={(event) => toggle(event.target.checked)} />
        <span>
          <span className="font-medium">Learn from my conversations</span>
          <span className="block text-neutral-500 dark:text-neutral-400">After a chat goes quiet, durable facts from your messages are added to (or update) your memories. Turn it off to keep memory to what you and the agent save explicitly.</span>
        </span>
      </label>

      <form onSubmit={add} className="space-y-2">
        <label htmlFor="new-memory" className="text-sm font-medium text-neutral-800 dark:text-neutral-200">
          Add a memory
        </label>
        <textarea id="new-memory" className={textareaClassName} value={newContent} onChange={(event) => setNewContent(event.target.value)} placeholder="e.g. I write TypeScript with two-space indentation and no semicolons." maxLength={20_000} required />
        <div className="flex flex-col gap-2 sm:flex-row">
          <label htmlFor="new-memory-tags" className="sr-only">
            Tags
          </label>
          <input id="new-memory-tags" className={inputClassName} value={newTags} onChange={(event) => setNewTags(event.target.value)} placeholder="tags, comma separated (optional)" />
          <Button type="submit" pending={pending === "add"} className="shrink-0">
            Add memory
          </Button>
        </div>
      </form>

      <form onSubmit={search} role="search" className="flex gap-2">
        <label htmlFor="memory-search" className="sr-only">
          Search memories
        </label>
        <input id="memory-search" type="search" className={inputClassName} value={query} onChange={(event) => setQuery(event.target.value)} placeholder="Search memories" />
        <Button type="submit" variant="secondary" pending={pending === "search"}>
          Search
        </Button>
      </form>

      <FeedbackAlert feedback={feedback} />

      <div>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h3 className="text-sm font-semibold text-neutral-900 dark:text-neutral-100" aria-live="polite">
            {results ? `${results.memories.length} results for “${results.query}” (${results.mode} search)` : `${memories.length} memories`}
          </h3>
          <div className="flex gap-2">
            {results ? (
              <Button size="sm" variant="ghost" onClick={() => setResults(undefined)}>
                Show all
              </Button>
            ) : null}
            <a href="/api/memories/export" download className={buttonClassName({ variant: "secondary", size: "sm" })}>
              Export JSON
            </a>
            <Button size="sm" variant="danger" disabled={!memories.length} onClick={() => deletionOfAll.ask(true)}>
              Delete all
            </Button>
          </div>
        </div>
        {shown.length ? (
          <ul className="mt-2 divide-y divide-neutral-200 dark:divide-neutral-800">
            {shown.map((memory) => (
              <MemoryRow key={memory.id} memory={memory} onChanged={changed} onDeleted={deleted} />
            ))}
          </ul>
        ) : (
          <p className="mt-3 text-sm text-neutral-500 dark:text-neutral-400">{results ? "Nothing matches." : "No memories yet. Tell the agent to remember something, or add one above."}</p>
        )}
      </div>
      <ConfirmDialog {...deletionOfAll.dialog} title="Delete all memories?" confirmLabel="Delete all" destructive onConfirm={deleteAll}>
        All {memories.length} memories are deleted for good. Export them first if you want a copy.
      </ConfirmDialog>
    </div>
  );
}
