"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useDismiss } from "./use-dismiss";

/**
 * A small dropdown of actions (menu button pattern): the button opens it and focus moves to the
 * first item; ↑ ↓ move between items, Esc or a click elsewhere closes it and focus returns to the
 * button. Items are links or buttons passed as `items`.
 */
export type TMenuItem = { label: string; href?: string; download?: boolean; onSelect?: () => void };

export function Menu({ label, icon, items, buttonClassName }: { label: string; icon?: ReactNode; items: TMenuItem[]; buttonClassName?: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open) list.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [open]);
  // Escape is the list's own key (below), so that it goes no further than the menu.
  useDismiss({ open, inside: [list, button], onOutside: () => setOpen(false) });

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? `${id}-menu` : undefined}
        onClick={() => setOpen((value) => !value)}
        className={buttonClassName}
      >
        {icon}
        <span className="max-sm:sr-only">{label}</span>
      </button>
      {open ? (
        <div
          ref={list}
          id={`${id}-menu`}
          role="menu"
          aria-label={label}
          onKeyDown={(event) => {
            const entries = Array.from(list.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []);
            const index = entries.findIndex((entry) => entry === document.activeElement);
            if (event.key === "Escape") {
              event.preventDefault();
              event.stopPropagation();
              close();
            } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
              event.preventDefault();
              entries[(index + (event.key === "ArrowDown" ? 1 : entries.length - 1)) % entries.length]?.focus();
            } else if (event.key === "Tab") setOpen(false);
          }}
          className="absolute right-0 z-50 mt-1 min-w-48 rounded-lg border border-neutral-200 bg-white p-1 shadow-lg dark:border-neutral-700 dark:bg-neutral-900"
        >
          {items.map((item) =>
            item.href ? (
              <a
                key={item.label}
                role="menuitem"
                tabIndex={-1}
                href={item.href}
                download={item.download || undefined}
                onClick={() => setOpen(false)}
                className="block rounded-md px-3 py-2 text-sm text-neutral-800 hover:bg-neutral-100 focus:bg-neutral-100 focus:outline-none dark:text-neutral-200 dark:hover:bg-neutral-800 dark:focus:bg-neutral-800"
              >
                {item.label}
              </a>
            ) : (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  item.onSelect?.();
                  close();
                }}
                className="block w-full rounded-md px-3 py-2 text-left text-sm text-neutral-800 hover:bg-neutral-100 focus:bg-neutral-100 focus:outline-none dark:text-neutral-200 dark:hover:bg-neutral-800 dark:focus:bg-neutral-800"
              >
                {item.label}
              </button>
            ),
          )}
        </div>
      ) : null}
    </div>
  );
}
