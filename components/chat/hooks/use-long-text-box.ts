"use client";

import { useEffect, useLayoutEffect, useRef, type RefObject } from "react";

/**
 * What keeps a text box responsive with a long text in it (issue 31: people paste logs, stack
 * traces and documents).
 *
 * Chromium inserts a multi-line text that arrives as typed text (an input method's or dictation's
 * commit, Playwright's `fill`) one line at a time, with an `input` event per line: 200 KB of log
 * lines were 3,000 events, each a render and a re-measured height. A paste is one edit already and
 * keeps the browser's own handling (and its undo).
 */

/** Typed-text insertions at least this long, with a line break, are put in as one edit. */
const ONE_EDIT_FROM = 1_000;

export function useLongTextInsert(ref: RefObject<HTMLTextAreaElement | null>) {
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onBeforeInput = (event: InputEvent) => {
      const text = event.data;
      if (event.inputType !== "insertText" || event.isComposing || !event.cancelable || !text || text.length < ONE_EDIT_FROM || !text.includes("\n")) return;
      event.preventDefault();
      element.setRangeText(text, element.selectionStart, element.selectionEnd, "end");
      // React's onChange sees the new value from this event, as from any edit.
      element.dispatchEvent(new Event("input", { bubbles: true }));
      if (element.selectionEnd === element.value.length) element.scrollTop = element.scrollHeight;
    };
    element.addEventListener("beforeinput", onBeforeInput);
    return () => element.removeEventListener("beforeinput", onBeforeInput);
  }, [ref]);
}

/**
 * Grows the box with its text up to `maxHeight`, then scrolls. Measuring means laying the whole
 * text out again, so once the box is at its largest it is measured again only when the text got
 * shorter (added text cannot make it smaller).
 */
export function useAutosize(ref: RefObject<HTMLTextAreaElement | null>, value: string, maxHeight: number) {
  const measured = useRef({ length: -1, full: false });
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const last = measured.current;
    if (last.full && value.length >= last.length) {
      last.length = value.length;
      return;
    }
    element.style.height = "auto";
    const height = element.scrollHeight;
    element.style.height = `${Math.min(height, maxHeight)}px`;
    measured.current = { length: value.length, full: height >= maxHeight };
  }, [ref, value, maxHeight]);
}
