"use client";

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { apiRequest } from "@/components/api-request";
import type { TSessionSummary } from "@/lib/wire/chat";

/**
 * The signed-in user's chat sessions, shared by the sidebar and the chat page. The layout renders
 * the first list on the server; anything that changes a session (a run gives it a title, rename,
 * delete, fork, new chat) calls `refresh()` instead of re-rendering the whole layout.
 */
export type TSessionListItem = Pick<TSessionSummary, "id" | "title" | "status" | "updatedAt" | "trigger" | "parentSessionId" | "forkedFromStep">;

type TSessionsResponse = { sessions: TSessionSummary[] };

export function toListItem(session: TSessionSummary): TSessionListItem {
  const { id, title, status, updatedAt, trigger, parentSessionId, forkedFromStep } = session;
  return { id, title, status, updatedAt, trigger, parentSessionId, forkedFromStep };
}

type TSessionListContext = {
  sessions: TSessionListItem[];
  refresh: () => Promise<void>;
  /** Local change shown at once, before `refresh()` confirms it. */
  update: (change: (sessions: TSessionListItem[]) => TSessionListItem[]) => void;
};

const SessionListContext = createContext<TSessionListContext | null>(null);

export function SessionListProvider({ initialSessions, children }: { initialSessions: TSessionListItem[]; children: ReactNode }) {
  const [state, setState] = useState({ source: initialSessions, sessions: initialSessions });
  // A new server render (router.refresh) brings a newer list: adopt it.
  if (state.source !== initialSessions) setState({ source: initialSessions, sessions: initialSessions });
  const latestRequest = useRef(0);

  const refresh = useCallback(async () => {
    const request = ++latestRequest.current;
    try {
      const body = await apiRequest<TSessionsResponse>("/api/sessions?view=sidebar");
      if (request !== latestRequest.current) return;
      const sessions = body.sessions.map(toListItem);
      setState((current) => ({ ...current, sessions }));
    } catch {
      // The list stays as it was; the next refresh tries again.
    }
  }, []);

  const update = useCallback((change: (sessions: TSessionListItem[]) => TSessionListItem[]) => {
    setState((current) => ({ ...current, sessions: change(current.sessions) }));
  }, []);

  const value = useMemo(() => ({ sessions: state.sessions, refresh, update }), [state.sessions, refresh, update]);
  return <SessionListContext.Provider value={value}>{children}</SessionListContext.Provider>;
}

export function useSessionList(): TSessionListContext {
  const context = useContext(SessionListContext);
  if (!context) throw new Error("useSessionList needs a SessionListProvider (app/(app)/layout.tsx).");
  return context;
}
