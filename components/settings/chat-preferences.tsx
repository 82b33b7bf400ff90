"use client";

import { useState } from "react";
import { ThemeToggle } from "@/components/app-shell/theme-toggle";
import type { TTheme } from "@/components/app-shell/theme";
import { usePreferences } from "@/components/chat/hooks/use-preferences";

const CHECKBOX = "mt-0.5 size-4 shrink-0 accent-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:accent-neutral-100";

/** How the chat looks and tells you things, kept in this browser (the theme also in a cookie). */
export function ChatPreferences({ theme }: { theme: TTheme }) {
  const [preferences, setPreferences] = usePreferences();
  const [permissionNote, setPermissionNote] = useState<string>();

  async function setNotify(enabled: boolean) {
    setPermissionNote(undefined);
    if (!enabled) return setPreferences({ notify: false });
    if (typeof Notification === "undefined") {
      setPermissionNote("This browser does not offer notifications here (they need https or localhost). The tab's title still shows a count.");
      return;
    }
    const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    if (permission !== "granted") {
      setPermissionNote("The browser blocked notifications for this site; allow them in its site settings. The tab's title still shows a count.");
      return;
    }
    setPreferences({ notify: true });
  }

  return (
    <div className="max-w-md space-y-5 text-sm">
      <div>
        <p className="mb-1.5 font-medium text-neutral-800 dark:text-neutral-200">Theme</p>
        <ThemeToggle initial={theme} />
      </div>
      <label className="flex items-start gap-2">
        <input type="checkbox" className={CHECKBOX} checked={preferences.showStepIds} onChange={(event) => setPreferences({ showStepIds: event.target.checked })} />
        <span>
          <span className="font-medium text-neutral-800 dark:text-neutral-200">Show step ids in chats</span>
          <span className="block text-xs text-neutral-500 dark:text-neutral-400">The trace numbers (s0003) that rollback and fork use. The steps panel always shows them.</span>
        </span>
      </label>
      <label className="flex items-start gap-2">
        <input type="checkbox" className={CHECKBOX} checked={preferences.notify} onChange={(event) => void setNotify(event.target.checked)} />
        <span>
          <span className="font-medium text-neutral-800 dark:text-neutral-200">Notify me when a chat in a background tab needs approval or finishes</span>
          <span className="block text-xs text-neutral-500 dark:text-neutral-400">A browser notification; the tab&apos;s title shows a count either way.</span>
        </span>
      </label>
      {permissionNote ? (
        <p role="status" className="text-xs text-amber-800 dark:text-amber-300">
          {permissionNote}
        </p>
      ) : null}
    </div>
  );
}
