"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { NotificationBell } from "./notification-bell";
import { SessionList } from "./session-list";
import { SignOutButton } from "./sign-out-button";

export type TShellUser = { name: string | null; email: string; isAdmin: boolean };

type TNavItem = { href: string; label: string; icon: React.ReactNode; match: (path: string) => boolean };

function navItems(isAdmin: boolean): TNavItem[] {
  const items: TNavItem[] = [
    { href: "/", label: "Chat", icon: <ChatIcon />, match: (path) => path === "/" || path.startsWith("/chat") },
    { href: "/jobs", label: "Scheduled jobs", icon: <ClockIcon />, match: (path) => path === "/jobs" || path.startsWith("/jobs/") },
    { href: "/agents", label: "Agents", icon: <AgentsIcon />, match: (path) => path.startsWith("/agents") || path.startsWith("/admin/agents") },
    { href: "/skills", label: "Skills", icon: <SkillsIcon />, match: (path) => path.startsWith("/skills") },
    { href: "/knowledge", label: "Knowledge", icon: <BookIcon />, match: (path) => path.startsWith("/knowledge") },
    { href: "/settings", label: "Settings", icon: <SettingsIcon />, match: (path) => path.startsWith("/settings") },
  ];
  if (isAdmin) {
    items.push({
      href: "/admin/users",
      label: "Admin",
      icon: <ShieldIcon />,
      match: (path) => path.startsWith("/admin") && !["/admin/jobs", "/admin/agents", "/admin/plugins", "/admin/skills"].some((prefix) => path.startsWith(prefix)),
    });
    items.push({ href: "/admin/plugins", label: "Plugins & skills", icon: <PuzzleIcon />, match: (path) => path.startsWith("/admin/plugins") || path.startsWith("/admin/skills") });
    items.push({ href: "/admin/jobs", label: "Jobs", icon: <ClockIcon />, match: (path) => path.startsWith("/admin/jobs") });
  }
  return items;
}

/**
 * The app's navigation: a fixed column from the md breakpoint up; below it, a top bar whose menu
 * button opens the same column as a drawer (one copy in the DOM, so every control has one name).
 */
export function Sidebar({ user }: { user: TShellUser }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  const firstLink = useRef<HTMLAnchorElement>(null);

  useEffect(() => {
    if (!open) return;
    firstLink.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
        menuButton.current?.focus();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [open]);

  const close = () => setOpen(false);

  return (
    <>
      <div className="sticky top-0 z-30 flex h-14 items-center gap-2 border-b border-neutral-200 bg-white/90 px-3 backdrop-blur md:hidden dark:border-neutral-800 dark:bg-neutral-950/90">
        <button
          ref={menuButton}
          type="button"
          className="grid size-10 place-items-center rounded-lg text-neutral-700 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-neutral-200 dark:hover:bg-neutral-800"
          aria-label={open ? "Close menu" : "Open menu"}
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((value) => !value)}
        >
          {open ? <CloseIcon /> : <MenuIcon />}
        </button>
        <Brand />
        <div className="ml-auto">
          <NotificationBell placement="topbar" />
        </div>
      </div>

      {open ? (
        <div className="fixed inset-0 top-14 z-30 bg-neutral-950/40 md:hidden" aria-hidden="true" onClick={close} />
      ) : null}

      <aside
        id={panelId}
        aria-label="Sidebar"
        className={[
          "z-40 w-72 flex-col border-r border-neutral-200 bg-neutral-50 dark:border-neutral-800 dark:bg-neutral-900",
          "fixed top-14 bottom-0 left-0 md:sticky md:top-0 md:h-dvh md:w-64 md:shrink-0",
          open ? "flex shadow-xl md:shadow-none" : "hidden",
          "md:flex",
        ].join(" ")}
      >
        <div className="hidden h-14 items-center justify-between gap-2 px-4 md:flex">
          <Brand />
          <NotificationBell placement="sidebar" />
        </div>

        <nav aria-label="Primary" className="px-3 pt-3 md:pt-1">
          <ul className="space-y-0.5">
            {navItems(user.isAdmin).map((item, index) => {
              const active = item.match(pathname);
              return (
                <li key={item.href}>
                  <Link
                    ref={index === 0 ? firstLink : undefined}
                    href={item.href}
                    onClick={close}
                    aria-current={active ? "page" : undefined}
                    className={[
                      "flex h-9 items-center gap-3 rounded-lg px-3 text-sm font-medium transition-colors",
                      "focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-blue-600",
                      active
                        ? "bg-neutral-200/80 text-neutral-900 dark:bg-neutral-800 dark:text-white"
                        : "text-neutral-600 hover:bg-neutral-200/50 hover:text-neutral-900 dark:text-neutral-400 dark:hover:bg-neutral-800/60 dark:hover:text-white",
                    ].join(" ")}
                  >
                    {item.icon}
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>

        <section aria-labelledby={`${panelId}-recent`} data-slot="session-list" className="mt-6 min-h-0 flex-1 overflow-y-auto px-3">
          <SessionList headingId={`${panelId}-recent`} onNavigate={close} />
        </section>

        <div className="border-t border-neutral-200 p-3 dark:border-neutral-800">
          <div className="flex items-center gap-3 px-1">
            <span
              aria-hidden="true"
              className="grid size-8 shrink-0 place-items-center rounded-full bg-neutral-200 text-sm font-semibold text-neutral-700 uppercase dark:bg-neutral-800 dark:text-neutral-200"
            >
              {(user.name || user.email).slice(0, 1)}
            </span>
            <div className="min-w-0 flex-1">
              {user.name ? <p className="truncate text-sm font-medium text-neutral-900 dark:text-neutral-100">{user.name}</p> : null}
              <p className="truncate text-xs text-neutral-500 dark:text-neutral-400" title={user.email}>
                {user.email}
              </p>
            </div>
          </div>
          <SignOutButton className="mt-3 w-full" />
        </div>
      </aside>
    </>
  );
}

function Brand() {
  return (
    <Link
      href="/"
      className="flex items-center gap-2 rounded-lg text-base font-semibold tracking-tight text-neutral-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:text-neutral-50"
    >
      <span aria-hidden="true" className="grid size-7 place-items-center rounded-md bg-neutral-900 text-xs text-white dark:bg-neutral-100 dark:text-neutral-900">
        x
      </span>
      xclaw
    </Link>
  );
}

function Icon({ children }: { children: React.ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" className="size-4 shrink-0" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      {children}
    </svg>
  );
}

function ChatIcon() {
  return (
    <Icon>
      <path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l.9-5.4A8 8 0 1 1 21 12Z" />
    </Icon>
  );
}

function SettingsIcon() {
  return (
    <Icon>
      <circle cx="12" cy="12" r="3" />
      <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1Z" />
    </Icon>
  );
}

function AgentsIcon() {
  return (
    <Icon>
      <circle cx="9" cy="8" r="3" />
      <path d="M3 20a6 6 0 0 1 12 0M16 5a3 3 0 0 1 0 6M21 20a6 6 0 0 0-4-5.7" />
    </Icon>
  );
}

function BookIcon() {
  return (
    <Icon>
      <path d="M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5v14ZM4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5" />
    </Icon>
  );
}

function ShieldIcon() {
  return (
    <Icon>
      <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
    </Icon>
  );
}

function SkillsIcon() {
  return (
    <Icon>
      <path d="M4 19.5V5a2 2 0 0 1 2-2h12v16H6a2 2 0 0 0-2 2Z" />
      <path d="M8 7h6M8 11h4" />
    </Icon>
  );
}

function PuzzleIcon() {
  return (
    <Icon>
      <path d="M9 3h6v3a2 2 0 1 0 4 0V3h2v6h-3a2 2 0 1 0 0 4h3v8H3v-8h3a2 2 0 1 0 0-4H3V3h6Z" />
    </Icon>
  );
}

function ClockIcon() {
  return (
    <Icon>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" />
    </Icon>
  );
}

function MenuIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
      <path d="M4 6h16M4 12h16M4 18h16" />
    </svg>
  );
}

function CloseIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" aria-hidden="true">
      <path d="M6 6l12 12M18 6 6 18" />
    </svg>
  );
}
