"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/**
 * Keeps a scrolling message list at its newest content while the reader is at the bottom, and
 * leaves it alone once they scroll up to read something earlier ("Jump to latest" brings them
 * back). Growth is noticed with a ResizeObserver on the content, so streamed text, images that
 * load late and cards that open all count, without re-running on every message change.
 */
const NEAR_BOTTOM_PX = 80;

export function useStickToBottom() {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (!element || !inner) return;
    element.scrollTop = element.scrollHeight;
    const observer = new ResizeObserver(() => {
      if (stick.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    const near = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
    stick.current = near;
    setAtBottom(near);
  }, []);

  /** Follow new content again (the person sent something, or pressed "Jump to latest"). */
  const pin = useCallback((smooth = false) => {
    stick.current = true;
    setAtBottom(true);
    const element = scroller.current;
    if (element) element.scrollTo({ top: element.scrollHeight, behavior: smooth ? "smooth" : "auto" });
  }, []);

  return { scroller, content, atBottom, onScroll, pin };
}
