"use client";

import { useCallback, useSyncExternalStore } from "react";

/**
 * The chat's display preferences, kept in this browser (localStorage) and shared by every open
 * tab: whether step ids show in the conversation (off by default: they are trace detail), and
 * whether to send a browser notification when a chat in a background tab needs approval or finishes.
 */
export type TChatPreferences = { showStepIds: boolean; notify: boolean };

const DEFAULTS: TChatPreferences = { showStepIds: false, notify: false };
const KEY = "xclaw.chat.preferences";
const EVENT = "xclaw:preferences";

let memory: string | undefined;
let cached: { raw: string | null; value: TChatPreferences } | undefined;

function rawPreferences(): string | null {
  if (memory !== undefined) return memory;
  try {
    return window.localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

function parse(raw: string | null): TChatPreferences {
  if (!raw) return DEFAULTS;
  try {
    const stored: unknown = JSON.parse(raw);
    if (!stored || typeof stored !== "object") return DEFAULTS;
    return {
      showStepIds: "showStepIds" in stored && typeof stored.showStepIds === "boolean" ? stored.showStepIds : DEFAULTS.showStepIds,
      notify: "notify" in stored && typeof stored.notify === "boolean" ? stored.notify : DEFAULTS.notify,
    };
  } catch {
    return DEFAULTS;
  }
}

// useSyncExternalStore needs the same object for the same stored value.
function snapshot(): TChatPreferences {
  const raw = rawPreferences();
  if (!cached || cached.raw !== raw) cached = { raw, value: parse(raw) };
  return cached.value;
}

function subscribe(onChange: () => void) {
  window.addEventListener("storage", onChange);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(EVENT, onChange);
  };
}

export function usePreferences(): [TChatPreferences, (change: Partial<TChatPreferences>) => void] {
  const preferences = useSyncExternalStore(subscribe, snapshot, () => DEFAULTS);
  const update = useCallback((change: Partial<TChatPreferences>) => {
    const next = JSON.stringify({ ...snapshot(), ...change });
    try {
      window.localStorage.setItem(KEY, next);
    } catch {
      // Storage refused (private mode): the choice lasts until the page closes.
      memory = next;
    }
    window.dispatchEvent(new Event(EVENT));
  }, []);
  return [preferences, update];
}
