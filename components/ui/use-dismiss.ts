"use client";

import { useEffect, useRef, type RefObject } from "react";

/**
 * Closes an open popup (a menu, the notifications panel) when the person presses outside it and
 * its button, and — when `onEscape` is given — on Escape anywhere (the popup returns focus to its
 * button there). Listens only while the popup is open.
 */
export function useDismiss({ open, inside, onOutside, onEscape }: { open: boolean; inside: RefObject<HTMLElement | null>[]; onOutside: () => void; onEscape?: () => void }) {
  // The newest callbacks, without listening again on every render.
  const latest = useRef({ inside, onOutside, onEscape });
  useEffect(() => {
    latest.current = { inside, onOutside, onEscape };
  });

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target instanceof Node ? event.target : null;
      if (!latest.current.inside.some((element) => element.current?.contains(target))) latest.current.onOutside();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") latest.current.onEscape?.();
    };
    window.addEventListener("pointerdown", onPointerDown);
    window.addEventListener("keydown", onKeyDown);
    return () => {
      window.removeEventListener("pointerdown", onPointerDown);
      window.removeEventListener("keydown", onKeyDown);
    };
  }, [open]);
}
