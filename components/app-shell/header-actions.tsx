"use client";

import type { ReactNode } from "react";

/**
 * The app header's slot for small global controls next to the brand (the notifications bell goes
 * here). Rendered in the sidebar's header on desktop, in the phone's app bar and in the phone's
 * menu drawer; add controls as children of this one component so every place gets them.
 */
export function HeaderActions({ children }: { children?: ReactNode }) {
  return (
    <div data-slot="header-actions" className="ml-auto flex items-center gap-1">
      {children}
    </div>
  );
}
