"use client";

import Link from "next/link";
import { useEffect, useId, useRef, useState, useSyncExternalStore } from "react";
import { DateTime } from "@/components/ui/date-time";
import { BellIcon } from "@/components/ui/icons";
import { useDismiss } from "@/components/ui/use-dismiss";
import type { TNotificationLevel, TNotificationView } from "@/lib/wire/chronos";
import { getServerSnapshot, getSnapshot, markRead, refresh, subscribe } from "./notifications-store";

/**
 * The bell: the unread count, and a panel with the latest notifications, each linking to the
 * session (the trace) of the run that sent it. Opening a notification marks it read; "Mark all
 * read" clears the count. Escape or a click outside closes the panel and gives focus back.
 */
const LEVEL_STYLES: Record<TNotificationLevel, { label: string; className: string }> = {
  info: { label: "Info", className: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300" },
  warning: { label: "Warning", className: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-300" },
  critical: { label: "Critical", className: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300" },
};

export function NotificationBell({ placement }: { placement: "sidebar" | "topbar" }) {
  const { notifications, unread, loaded } = useSyncExternalStore(subscribe, getSnapshot, getServerSnapshot);
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open) void refresh();
  }, [open]);
  useDismiss({
    open,
    inside: [panel, button],
    onOutside: () => setOpen(false),
    onEscape: () => {
      setOpen(false);
      button.current?.focus();
    },
  });

  const label = unread ? `Notifications, ${unread} unread` : "Notifications";
  const panelPosition =
    placement === "sidebar"
      ? "absolute top-full left-0 mt-2 w-[22rem] max-w-[calc(100vw-2rem)]"
      : "fixed inset-x-2 top-14 sm:absolute sm:inset-x-auto sm:top-full sm:right-0 sm:mt-2 sm:w-[22rem]";

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        aria-label={label}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
        className="relative grid size-9 place-items-center rounded-lg text-neutral-600 hover:bg-neutral-200/60 hover:text-neutral-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-neutral-300 dark:hover:bg-neutral-800 dark:hover:text-white"
      >
        <BellIcon size="lg" />
        {unread ? (
          <span
            aria-hidden="true"
            data-testid="notification-count"
            className="absolute -top-0.5 -right-0.5 grid h-4 min-w-4 place-items-center rounded-full bg-red-600 px-1 text-[10px] leading-none font-semibold text-white"
          >
            {unread > 99 ? "99+" : unread}
          </span>
        ) : null}
      </button>
      {open ? (
        <div
          ref={panel}
          id={panelId}
          role="region"
          aria-label="Notifications"
          className={`${panelPosition} z-50 overflow-hidden rounded-xl border border-neutral-200 bg-white text-neutral-900 shadow-xl dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-100`}
        >
          <div className="flex items-center justify-between gap-2 border-b border-neutral-200 px-4 py-2.5 dark:border-neutral-800">
            <h2 className="text-sm font-semibold">Notifications</h2>
            <button
              type="button"
              disabled={!unread}
              onClick={() => void markRead({ all: true })}
              className="rounded-md px-2 py-1 text-xs font-medium text-blue-700 hover:bg-blue-50 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:cursor-default disabled:text-neutral-400 disabled:hover:bg-transparent dark:text-blue-400 dark:hover:bg-blue-950/50"
            >
              Mark all read
            </button>
          </div>
          {!loaded ? (
            <p className="px-4 py-6 text-center text-sm text-neutral-500 dark:text-neutral-400">Loading…</p>
          ) : notifications.length === 0 ? (
            <p className="px-4 py-6 text-center text-sm text-neutral-500 dark:text-neutral-400">
              Nothing yet. Scheduled jobs and alerts report here when something needs you.
            </p>
          ) : (
            <ul className="max-h-[min(28rem,70dvh)] divide-y divide-neutral-200 overflow-y-auto dark:divide-neutral-800" aria-label="Latest notifications">
              {notifications.map((item) => (
                <NotificationItem key={item.id} item={item} onOpen={() => setOpen(false)} />
              ))}
            </ul>
          )}
          <div className="border-t border-neutral-200 px-4 py-2 text-xs dark:border-neutral-800">
            <Link href="/jobs" onClick={() => setOpen(false)} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
              Scheduled jobs
            </Link>
            <span className="text-neutral-400"> · </span>
            <Link href="/settings#notifications" onClick={() => setOpen(false)} className="font-medium text-blue-700 hover:underline dark:text-blue-400">
              Notification channels
            </Link>
          </div>
        </div>
      ) : null}
    </div>
  );
}

function NotificationItem({ item, onOpen }: { item: TNotificationView; onOpen: () => void }) {
  const level = LEVEL_STYLES[item.level];
  const unread = !item.readAt;
  return (
    <li data-testid="notification" className={unread ? "bg-blue-50/50 dark:bg-blue-950/20" : undefined}>
      <div className="px-4 py-3">
        <div className="flex items-center gap-2">
          <span className={`rounded-full px-1.5 py-0.5 text-[10px] font-semibold tracking-wide uppercase ${level.className}`}>{level.label}</span>
          {unread ? <span className="sr-only">Unread.</span> : null}
          <span className="truncate text-sm font-medium">{item.title}</span>
        </div>
        <p className="mt-1 line-clamp-3 text-xs break-words whitespace-pre-line text-neutral-600 dark:text-neutral-400">{item.message}</p>
        <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-neutral-500 dark:text-neutral-400">
          <DateTime iso={item.createdAt} />
          <span className="truncate">{item.source}</span>
          {item.sessionId ? (
            <Link
              href={`/chat/${item.sessionId}`}
              onClick={() => {
                void markRead({ ids: [item.id] });
                onOpen();
              }}
              className="font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-400"
            >
              Open trace<span className="sr-only">: {item.title}</span>
            </Link>
          ) : null}
          {unread ? (
            <button type="button" onClick={() => void markRead({ ids: [item.id] })} className="font-medium text-neutral-600 hover:underline dark:text-neutral-300">
              Mark read<span className="sr-only">: {item.title}</span>
            </button>
          ) : null}
        </div>
      </div>
    </li>
  );
}
