"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";

/**
 * Forms here are sent by JavaScript. Until the page has hydrated (a slow connection, a dev server
 * opened under another address) a submit is the browser's own, and a form without `method="post"`
 * would put every field, passwords included, into the address as a GET query. So every form gets
 * `method="post"` and this action: the same page with `?notice=not-ready`, which carries nothing
 * the person typed. The page ignores the posted body and says to try again.
 */
const NOTICE = "not-ready";

export function useFormFallbackAction(): string {
  const pathname = usePathname();
  return `${pathname}?notice=${NOTICE}`;
}

/** Shown on any page reached through that fallback; the marker is then removed from the address. */
export function FormFallbackNotice() {
  const searchParams = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();
  const shown = searchParams.get("notice") === NOTICE;
  // Latched: removing the marker from the address must not hide the message.
  const [visible, setVisible] = useState(shown);
  if (shown && !visible) setVisible(true);
  useEffect(() => {
    if (!shown) return;
    const next = new URLSearchParams(searchParams);
    next.delete("notice");
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  }, [shown, searchParams, pathname, router]);
  if (!visible) return null;
  return (
    <div
      role="alert"
      data-testid="form-fallback-notice"
      className="fixed inset-x-0 top-0 z-[60] flex items-center justify-center gap-3 border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
    >
      <span>The page had not finished loading, so that form was not sent. Please fill it in and try again.</span>
      <button
        type="button"
        onClick={() => setVisible(false)}
        className="shrink-0 rounded px-1 text-xs font-medium underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        Dismiss
      </button>
    </div>
  );
}
