"use client";

import { useCallback, useEffect, useState } from "react";

/**
 * While the tab is in the background, a chat that needs approval or finishes says so in the tab's
 * title ("(1) Title · xclaw") and, if the person turned it on in Settings and the browser allows
 * it, with a notification. Coming back to the tab clears both.
 */
export type TAttentionReason = "approval" | "finished" | "failed";

const MESSAGES: Record<TAttentionReason, string> = {
  approval: "needs your approval",
  finished: "has a new reply",
  failed: "stopped with an error",
};

export function useAttention({ title, sessionId, notify }: { title: string; sessionId: string; notify: boolean }) {
  const [count, setCount] = useState(0);

  useEffect(() => {
    document.title = `${count ? `(${count}) ` : ""}${title} · xclaw`;
  }, [count, title]);

  useEffect(() => {
    const onVisibility = () => {
      if (document.visibilityState === "visible") setCount(0);
    };
    document.addEventListener("visibilitychange", onVisibility);
    return () => document.removeEventListener("visibilitychange", onVisibility);
  }, []);

  const signal = useCallback(
    (reason: TAttentionReason) => {
      if (document.visibilityState === "visible") return;
      setCount((current) => current + 1);
      if (!notify || typeof Notification === "undefined" || Notification.permission !== "granted") return;
      try {
        // One notification per chat: a newer one replaces the older (same tag).
        const notification = new Notification(`xclaw: ${title}`, { body: `This chat ${MESSAGES[reason]}.`, tag: `xclaw-${sessionId}` });
        notification.onclick = () => {
          window.focus();
          notification.close();
        };
      } catch {
        // Some browsers allow notifications only from a service worker; the title still says it.
      }
    },
    [notify, sessionId, title],
  );

  return signal;
}
