"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";

// Next.js sets the new page's <title> as the route commits; give it a moment before reading it.
const TITLE_SETTLE_MS = 100;

/**
 * Tells screen-reader users which page a client-side navigation landed on, like Next.js's own
 * route announcer (hidden in globals.css). Next's announcer is an always-present, empty
 * role="alert" element, so every page would contain an alert before anything went wrong; this
 * one is a plain assertive live region, and role="alert" stays reserved for real errors.
 */
export function RouteAnnouncer() {
  const pathname = usePathname();
  const region = useRef<HTMLDivElement>(null);
  const previousPathname = useRef<string | undefined>(undefined);

  useEffect(() => {
    const previous = previousPathname.current;
    previousPathname.current = pathname;
    // The first load is announced by the screen reader itself.
    if (previous === undefined || previous === pathname) return;
    const timer = window.setTimeout(() => {
      if (!region.current) return;
      region.current.textContent = document.title || document.querySelector("h1")?.textContent || "";
    }, TITLE_SETTLE_MS);
    return () => window.clearTimeout(timer);
  }, [pathname]);

  return <div ref={region} aria-live="assertive" aria-atomic="true" className="sr-only" />;
}
