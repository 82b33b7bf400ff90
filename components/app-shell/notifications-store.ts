"use client";

import { apiRequest, ApiRequestError } from "@/components/api-request";
import type { TNotificationView } from "@/lib/wire/chronos";

/**
 * The bell's data, shared by every bell on the page (the sidebar's and the phone top bar's), so
 * there is one poller however many bells are mounted. It asks every 30 s while the tab is visible,
 * at once when the tab comes back or the window gets focus, and when some page announces news
 * (`NOTIFICATIONS_REFRESH`, e.g. a job run it started has finished). Failures back off up to five
 * minutes; a signed-out answer stops it.
 */
export const NOTIFICATIONS_REFRESH = "xclaw:notifications-refresh";

export type TNotificationsState = { notifications: TNotificationView[]; unread: number; loaded: boolean };

const POLL_MS = 30_000;
const MAX_BACKOFF_MS = 5 * 60_000;
const MIN_GAP_MS = 3_000;
const EMPTY: TNotificationsState = { notifications: [], unread: 0, loaded: false };

let state: TNotificationsState = EMPTY;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let failures = 0;
let lastFetch = 0;
let inFlight: Promise<void> | undefined;
let stopped = false;

function publish(next: TNotificationsState) {
  state = next;
  for (const listener of listeners) listener();
}

function schedule(ms: number) {
  clearTimeout(timer);
  if (listeners.size && !stopped) timer = setTimeout(() => void refresh(), ms);
}

export function refresh(): Promise<void> {
  if (inFlight) return inFlight;
  if (typeof document !== "undefined" && document.visibilityState === "hidden") {
    schedule(POLL_MS);
    return Promise.resolve();
  }
  lastFetch = Date.now();
  inFlight = (async () => {
    try {
      const result = await apiRequest<{ notifications: TNotificationView[]; unread: number }>("/api/notifications?limit=20");
      failures = 0;
      publish({ notifications: result.notifications, unread: result.unread, loaded: true });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 401) stopped = true;
      failures += 1;
    } finally {
      inFlight = undefined;
      schedule(failures ? Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** failures) : POLL_MS);
    }
  })();
  return inFlight;
}

function onWake() {
  if (document.visibilityState === "visible" && Date.now() - lastFetch > MIN_GAP_MS) void refresh();
}

function onNews() {
  void refresh();
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) {
    document.addEventListener("visibilitychange", onWake);
    window.addEventListener("focus", onWake);
    window.addEventListener(NOTIFICATIONS_REFRESH, onNews);
    void refresh();
  }
  return () => {
    listeners.delete(listener);
    if (!listeners.size) {
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onWake);
      window.removeEventListener("focus", onWake);
      window.removeEventListener(NOTIFICATIONS_REFRESH, onNews);
    }
  };
}

export function getSnapshot(): TNotificationsState {
  return state;
}

export function getServerSnapshot(): TNotificationsState {
  return EMPTY;
}

/** Marks notifications read here at once, then on the server. */
export async function markRead(options: { ids: string[] } | { all: true }): Promise<void> {
  const ids = "ids" in options ? new Set(options.ids) : undefined;
  const now = new Date().toISOString();
  const notifications = state.notifications.map((item) => (!item.readAt && (!ids || ids.has(item.id)) ? { ...item, readAt: now } : item));
  const changed = state.notifications.filter((item) => !item.readAt && (!ids || ids.has(item.id))).length;
  if (!changed && ids) return;
  publish({ ...state, notifications, unread: ids ? Math.max(0, state.unread - changed) : 0 });
  try {
    const result = await apiRequest<{ unread: number }>("/api/notifications/read", { method: "POST", body: ids ? { ids: [...ids] } : { all: true } });
    publish({ ...state, unread: result.unread });
  } catch {
    void refresh();
  }
}
