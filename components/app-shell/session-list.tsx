"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, useSyncExternalStore, type FormEvent, type KeyboardEvent } from "react";
import { apiRequest } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { FeedbackAlert } from "@/components/ui/alert";
import { IconButton } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EditIcon, TrashIcon } from "@/components/ui/icons";
import { filterSessions, groupSessions } from "./session-groups";
import { useSessionList, type TSessionListItem } from "./session-list-context";

/**
 * The sidebar's chats: a search, then the chats grouped by when they were last active (Today,
 * Yesterday, Previous 7 days, …), newest first. Each chat is one Tab stop: its link. Rename and
 * Delete are keys on the link (F2, Delete) and buttons that show on hover where there is a mouse
 * and stay visible on touch screens; ↑ and ↓ move between chats. Forks and sub-agent tasks say so.
 */
const UNTITLED = "New chat";

const subscribeNothing = () => () => {};

function kindOf(item: TSessionListItem): string | undefined {
  if (item.trigger === "agent") return "Sub-agent";
  if (item.parentSessionId) return "Fork";
  if (item.trigger === "job") return "Job";
  if (item.trigger === "webhook") return "Alert";
  if (item.trigger === "channel") return "Channel";
  if (item.trigger === "api") return "API";
  return undefined;
}

export function SessionList({ headingId, onNavigate }: { headingId: string; onNavigate: () => void }) {
  const pathname = usePathname();
  const router = useRouter();
  const searchId = useId();
  const { sessions, update, refresh } = useSessionList();
  const [search, setSearch] = useState("");
  const [editingId, setEditingId] = useState<string>();
  const renaming = useAction();
  const deletion = useConfirmation<TSessionListItem>();
  const pendingFocus = useRef<string | undefined>(undefined);
  const links = useRef(new Map<string, HTMLAnchorElement>());
  // Grouping uses the reader's calendar: on the server (no time zone known) everything is listed
  // as it comes, and the groups appear once the page runs in the browser.
  const inBrowser = useSyncExternalStore(subscribeNothing, () => true, () => false);

  const currentId = /^\/chat\/([^/]+)/.exec(pathname)?.[1];
  const filtered = useMemo(() => filterSessions(sessions, search), [sessions, search]);
  // Runs of scheduled jobs and alerts come last, in a group of their own (the chats are grouped by day).
  const groups = useMemo(() => {
    const chats = filtered.filter((item) => item.trigger !== "job" && item.trigger !== "webhook");
    const unattended = filtered.filter((item) => item.trigger === "job" || item.trigger === "webhook");
    const chatGroups = inBrowser ? groupSessions(chats, new Date()) : chats.length ? [{ label: "Chats", sessions: chats }] : [];
    return unattended.length ? [...chatGroups, { label: "Scheduled jobs and alerts", sessions: unattended }] : chatGroups;
  }, [filtered, inBrowser]);

  // After an inline rename the keyboard goes back to the chat's link.
  useEffect(() => {
    if (!pendingFocus.current) return;
    links.current.get(pendingFocus.current)?.focus();
    pendingFocus.current = undefined;
  });

  async function rename(item: TSessionListItem, title: string) {
    setEditingId(undefined);
    pendingFocus.current = item.id;
    const trimmed = title.trim();
    if (!trimmed || trimmed === item.title) return;
    update((list) => list.map((row) => (row.id === item.id ? { ...row, title: trimmed } : row)));
    await renaming.run(item.id, async () => {
      await apiRequest(`/api/sessions/${encodeURIComponent(item.id)}`, { method: "PATCH", body: { title: trimmed } });
    });
    await refresh();
  }

  const confirmDelete = deletion.confirm(async (item) => {
    await apiRequest(`/api/sessions/${encodeURIComponent(item.id)}`, { method: "DELETE" });
    update((list) => list.filter((row) => row.id !== item.id));
    if (item.id === currentId) router.push("/");
  });

  function onLinkKeyDown(event: KeyboardEvent<HTMLAnchorElement>, item: TSessionListItem) {
    if (event.key === "F2") {
      event.preventDefault();
      setEditingId(item.id);
    } else if (event.key === "Delete") {
      event.preventDefault();
      deletion.ask(item);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const order = filtered.map((row) => row.id);
      const next = order[order.indexOf(item.id) + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) links.current.get(next)?.focus();
    }
  }

  return (
    <>
      <div className="flex items-center justify-between gap-2 px-3">
        <h2 id={headingId} className="px-2 text-xs font-semibold tracking-wide text-neutral-500 uppercase dark:text-neutral-400">
          Chats
        </h2>
      </div>
      <div className="px-3 pt-2">
        <label htmlFor={searchId} className="sr-only">
          Search chats
        </label>
        <input
          id={searchId}
          type="search"
          value={search}
          placeholder="Search chats"
          autoComplete="off"
          onChange={(event) => setSearch(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape" && search) {
              event.preventDefault();
              event.stopPropagation();
              setSearch("");
            } else if (event.key === "ArrowDown" && filtered[0]) {
              event.preventDefault();
              links.current.get(filtered[0].id)?.focus();
            }
          }}
          className="block h-8 w-full rounded-lg border border-neutral-300 bg-white px-2.5 text-base text-neutral-900 placeholder:text-neutral-400 focus-visible:border-blue-600 focus-visible:outline-2 focus-visible:outline-blue-600/30 sm:text-sm dark:border-neutral-700 dark:bg-neutral-950 dark:text-neutral-100"
        />
      </div>
      <FeedbackAlert feedback={renaming.feedback} className="mx-3 mt-2" />
      <div className="min-h-0 flex-1 overflow-y-auto px-3 pt-2 pb-3">
        {sessions.length === 0 ? (
          <p className="mt-1 px-3 text-sm text-neutral-500 dark:text-neutral-400">No chats yet.</p>
        ) : filtered.length === 0 ? (
          <p role="status" className="mt-1 px-3 text-sm text-neutral-500 dark:text-neutral-400">
            No chat title matches “{search.trim()}”.
          </p>
        ) : (
          groups.map((group) => (
            <div key={group.label} className="mb-3" data-testid="session-group">
              <h3 className="px-3 pb-1 text-[11px] font-medium text-neutral-500 dark:text-neutral-400">{group.label}</h3>
              <ul className="space-y-0.5">
                {group.sessions.map((item) => {
                  const current = item.id === currentId;
                  // Untitled chats are all called "New chat"; their buttons must not share a name with the New chat button.
                  const name = item.title === UNTITLED ? "untitled chat" : item.title;
                  const kind = kindOf(item);
                  return (
                    <li key={item.id} className="group relative" data-testid="session-item">
                      {editingId === item.id ? (
                        <RenameField
                          item={item}
                          onSave={(title) => rename(item, title)}
                          onCancel={() => {
                            pendingFocus.current = item.id;
                            setEditingId(undefined);
                          }}
                        />
                      ) : (
                        <>
                          <Link
                            ref={(element) => {
                              if (element) links.current.set(item.id, element);
                              else links.current.delete(item.id);
                            }}
                            href={`/chat/${item.id}`}
                            onClick={onNavigate}
                            onKeyDown={(event) => onLinkKeyDown(event, item)}
                            aria-current={current ? "page" : undefined}
                            aria-keyshortcuts="F2 Delete"
                            aria-describedby={`${searchId}-keys`}
                            title={item.title}
                            className={[
                              "flex h-9 items-center gap-2 rounded-lg pr-16 pl-3 text-sm transition-colors",
                              "focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600",
                              current
                                ? "bg-neutral-200/80 font-medium text-neutral-900 dark:bg-neutral-800 dark:text-white"
                                : "text-neutral-700 hover:bg-neutral-200/50 hover:text-neutral-900 dark:text-neutral-300 dark:hover:bg-neutral-800/60 dark:hover:text-white",
                            ].join(" ")}
                          >
                            {item.status === "running" ? (
                              <span className="size-1.5 shrink-0 animate-pulse rounded-full bg-blue-600 dark:bg-blue-400">
                                <span className="sr-only">Running: </span>
                              </span>
                            ) : item.status === "paused" ? (
                              <span className="size-1.5 shrink-0 rounded-full bg-amber-500">
                                <span className="sr-only">Needs approval: </span>
                              </span>
                            ) : null}
                            {kind ? (
                              <span data-testid="session-kind" className="shrink-0 rounded bg-neutral-200 px-1 text-[10px] font-medium text-neutral-600 uppercase dark:bg-neutral-800 dark:text-neutral-400">
                                {kind}
                                <span className="sr-only">: </span>
                              </span>
                            ) : null}
                            <span className="truncate">{item.title}</span>
                          </Link>
                          <div
                            className={[
                              "absolute top-1/2 right-1 flex -translate-y-1/2 gap-0.5",
                              current ? "" : "pointer-fine:opacity-0 pointer-fine:group-focus-within:opacity-100 pointer-fine:group-hover:opacity-100",
                            ].join(" ")}
                          >
                            <RowButton label={`Rename ${name}`} onClick={() => setEditingId(item.id)}>
                              <EditIcon size="sm" />
                            </RowButton>
                            <RowButton label={`Delete ${name}`} onClick={() => deletion.ask(item)}>
                              <TrashIcon size="sm" />
                            </RowButton>
                          </div>
                        </>
                      )}
                    </li>
                  );
                })}
              </ul>
            </div>
          ))
        )}
        <p id={`${searchId}-keys`} className="sr-only">
          F2 renames, Delete deletes, arrow keys move between chats.
        </p>
      </div>
      <ConfirmDialog {...deletion.dialog} title={`Delete “${deletion.subject?.title ?? ""}”?`} confirmLabel="Delete" destructive onConfirm={confirmDelete}>
        The chat and its whole history are removed for good.
      </ConfirmDialog>
    </>
  );
}

function RenameField({ item, onSave, onCancel }: { item: TSessionListItem; onSave: (title: string) => void; onCancel: () => void }) {
  const fallbackAction = useFormFallbackAction();
  const [title, setTitle] = useState(item.title);
  const done = useRef(false);
  const finish = (action: () => void) => {
    if (done.current) return;
    done.current = true;
    action();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    finish(() => onSave(title));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      // The sidebar drawer also closes on Escape; this one only ends the edit.
      event.stopPropagation();
      event.nativeEvent.stopImmediatePropagation();
      finish(onCancel);
    }
  };
  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit}>
      <input
        // The rename key or button was just pressed: the field is where the keyboard should be.
        autoFocus
        aria-label="Chat title"
        value={title}
        maxLength={200}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => finish(() => onSave(title))}
        onFocus={(event) => event.target.select()}
        className="block h-9 w-full rounded-lg border border-blue-600 bg-white px-2 text-base text-neutral-900 outline-2 outline-blue-600/30 sm:text-sm dark:border-blue-400 dark:bg-neutral-900 dark:text-neutral-100 dark:outline-blue-400/30"
      />
    </form>
  );
}

function RowButton({ label, onClick, children }: { label: string; onClick: () => void; children: React.ReactNode }) {
  return (
    <IconButton
      // One Tab stop per chat (its link): these are for the mouse and touch; F2 and Delete on the link do the same.
      tabIndex={-1}
      label={label}
      onClick={onClick}
      className="grid size-7 place-items-center rounded-md text-neutral-500 hover:bg-neutral-300/60 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-neutral-400 dark:hover:bg-neutral-700 dark:hover:text-white"
    >
      {children}
    </IconButton>
  );
}
