"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { NewChatButton } from "@/components/chat/new-chat-button";
import { AgentsIcon, BookIcon, ChatIcon, ClockIcon, CloseIcon, PluginIcon, SettingsIcon, ShieldIcon, SkillsIcon } from "@/components/ui/icons";
import { HeaderActions } from "./header-actions";
import { NotificationBell } from "./notification-bell";
import { SessionList } from "./session-list";
import { MobileMenuButton, useSidebar } from "./sidebar-context";
import { SignOutButton } from "./sign-out-button";
import type { TTheme } from "./theme";
import { ThemeToggle } from "./theme-toggle";

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
      match: (path) => path.startsWith("/admin") && !["/admin/jobs", "/admin/agents", "/admin/plugins", "/admin/skills", "/admin/channels"].some((prefix) => path.startsWith(prefix)),
    });
    items.push({ href: "/admin/plugins", label: "Plugins & skills", icon: <PluginIcon />, match: (path) => path.startsWith("/admin/plugins") || path.startsWith("/admin/skills") });
    items.push({ href: "/admin/jobs", label: "Jobs", icon: <ClockIcon />, match: (path) => path.startsWith("/admin/jobs") });
    items.push({ href: "/admin/channels", label: "Channels", icon: <ChatIcon />, match: (path) => path.startsWith("/admin/channels") });
  }
  return items;
}

/**
 * The app's navigation: a fixed column from the md breakpoint up; below it a drawer opened by the
 * menu button, which sits in the app bar, or in the page's own header on chat pages (one header on
 * a phone, not two). One copy in the DOM, so every control has one name. "New chat" stays at the
 * top, above the chat list, which scrolls on its own; Ctrl+Shift+O opens a new chat from anywhere.
 */
export function Sidebar({ user, theme }: { user: TShellUser; theme: TTheme }) {
  const pathname = usePathname();
  const { open, setOpen, panelId, menuButton } = useSidebar();
  const newChat = useRef<HTMLButtonElement>(null);
  const firstControl = useRef<HTMLAnchorElement>(null);
  const chatPage = pathname.startsWith("/chat/");

  const close = () => setOpen(false);

  useEffect(() => {
    if (!open) return;
    firstControl.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.defaultPrevented) {
        setOpen(false);
        menuButton.current?.focus();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [open, setOpen, menuButton]);

  // Close the drawer when the page changes (a chat was opened from it).
  useEffect(() => setOpen(false), [pathname, setOpen]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "o") {
        event.preventDefault();
        newChat.current?.click();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <>
      <div
        className={[
          "sticky top-0 z-30 h-14 items-center gap-2 border-b border-neutral-200 bg-white/90 px-3 backdrop-blur md:hidden dark:border-neutral-800 dark:bg-neutral-950/90",
          chatPage ? "hidden" : "flex",
        ].join(" ")}
      >
        {chatPage ? null : <MobileMenuButton />}
        <Brand />
        <HeaderActions>
          <NotificationBell placement="topbar" />
        </HeaderActions>
      </div>

      {open ? <div className="fixed inset-0 z-40 bg-neutral-950/40 md:hidden" aria-hidden="true" onClick={close} /> : null}

      <aside
        id={panelId}
        aria-label="Sidebar"
        className={[
          "z-50 w-[min(20rem,85vw)] flex-col border-r border-neutral-200 bg-neutral-50 dark:border-neutral-800 dark:bg-neutral-900",
          "fixed inset-y-0 left-0 md:sticky md:top-0 md:z-auto md:h-dvh md:w-64 md:shrink-0",
          open ? "flex shadow-xl md:shadow-none" : "hidden",
          "md:flex",
        ].join(" ")}
      >
        <div className="flex h-14 shrink-0 items-center gap-2 px-3">
          <Brand ref={firstControl} />
          <HeaderActions>
            <NotificationBell placement="sidebar" />
          </HeaderActions>
          <button
            type="button"
            onClick={() => {
              close();
              menuButton.current?.focus();
            }}
            aria-label="Close menu"
            className="grid size-9 place-items-center rounded-lg text-neutral-600 hover:bg-neutral-200/60 focus-visible:outline-2 focus-visible:outline-blue-600 md:hidden dark:text-neutral-300 dark:hover:bg-neutral-800"
          >
            <CloseIcon size="lg" />
          </button>
        </div>

        <div className="shrink-0 px-3 pb-2">
          <NewChatButton ref={newChat} variant="secondary" size="sm" onCreated={close} />
        </div>

        <nav aria-label="Primary" className="shrink-0 px-3 pb-2">
          <ul className="space-y-0.5">
            {navItems(user.isAdmin).map((item) => {
              const active = item.match(pathname);
              return (
                <li key={item.href}>
                  <Link
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

        <section aria-labelledby={`${panelId}-recent`} data-slot="session-list" className="flex min-h-0 flex-1 flex-col border-t border-neutral-200 pt-3 dark:border-neutral-800">
          <SessionList headingId={`${panelId}-recent`} onNavigate={close} />
        </section>

        <div className="shrink-0 space-y-3 border-t border-neutral-200 p-3 dark:border-neutral-800">
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
          <ThemeToggle initial={theme} />
          <SignOutButton className="w-full" />
        </div>
      </aside>
    </>
  );
}

function Brand({ ref }: { ref?: React.Ref<HTMLAnchorElement> }) {
  return (
    <Link
      ref={ref}
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
