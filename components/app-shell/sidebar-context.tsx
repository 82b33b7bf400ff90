"use client";

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { CloseIcon, MenuIcon } from "@/components/ui/icons";

/**
 * Whether the sidebar drawer is open on a phone, shared by the sidebar and the page headers: a
 * page with a header of its own (the chat) puts the menu button there, so a phone shows one header
 * instead of the app bar and the page's header stacked (112 px of 844).
 */
type TSidebarContext = {
  open: boolean;
  setOpen: (open: boolean) => void;
  panelId: string;
  /** The menu button that opened the drawer, to return focus to when it closes. */
  menuButton: RefObject<HTMLButtonElement | null>;
};

const SidebarContext = createContext<TSidebarContext | null>(null);

export function SidebarProvider({ panelId, children }: { panelId: string; children: ReactNode }) {
  const [open, setOpenState] = useState(false);
  const menuButton = useRef<HTMLButtonElement | null>(null);
  const setOpen = useCallback((next: boolean) => setOpenState(next), []);
  const value = useMemo(() => ({ open, setOpen, panelId, menuButton }), [open, setOpen, panelId]);
  return <SidebarContext.Provider value={value}>{children}</SidebarContext.Provider>;
}

export function useSidebar(): TSidebarContext {
  const context = useContext(SidebarContext);
  if (!context) throw new Error("useSidebar needs a SidebarProvider (app/(app)/layout.tsx).");
  return context;
}

/** Opens and closes the sidebar drawer; only shown below the md breakpoint. */
export function MobileMenuButton({ className = "" }: { className?: string }) {
  const { open, setOpen, panelId, menuButton } = useSidebar();
  return (
    <button
      ref={menuButton}
      type="button"
      className={`grid size-10 shrink-0 place-items-center rounded-lg text-neutral-700 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-blue-600 md:hidden dark:text-neutral-200 dark:hover:bg-neutral-800 ${className}`}
      aria-label={open ? "Close menu" : "Open menu"}
      aria-expanded={open}
      aria-controls={panelId}
      onClick={() => setOpen(!open)}
    >
      {open ? <CloseIcon size="lg" /> : <MenuIcon size="lg" />}
    </button>
  );
}
