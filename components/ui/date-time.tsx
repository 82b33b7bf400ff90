"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * A timestamp in the reader's own time zone. The server does not know that zone, so the server
 * render (and hydration) shows UTC and the browser switches to local time right after.
 */
export function DateTime({ iso, fallback = "—", dateOnly = false }: { iso: string | null; fallback?: string; dateOnly?: boolean }) {
  const isClient = useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
  if (!iso) return <span>{fallback}</span>;
  const date = new Date(iso);
  const text = new Intl.DateTimeFormat(isClient ? undefined : "en-US", {
    dateStyle: "medium",
    ...(dateOnly ? {} : { timeStyle: "short" as const }),
    ...(isClient ? {} : { timeZone: "UTC" }),
  }).format(date);
  return (
    <time dateTime={iso} title={date.toISOString()}>
      {text}
      {isClient || dateOnly ? "" : " UTC"}
    </time>
  );
}
