/**
 * The sidebar's chat list: filtered by a search and grouped by when each chat was last active,
 * in the reader's own calendar (Today, Yesterday, Previous 7 days, Previous 30 days, then by month).
 * Pure functions (tests/unit/session-groups.test.ts).
 */
export type TListedSession = { id: string; title: string; updatedAt: string };

export type TSessionGroup<TSession extends TListedSession> = { label: string; sessions: TSession[] };

const DAY_MS = 86_400_000;

function startOfDay(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

export function groupLabel(updatedAt: Date, now: Date, locale?: string): string {
  const today = startOfDay(now);
  const day = startOfDay(updatedAt);
  if (day >= today) return "Today";
  if (day >= today - DAY_MS) return "Yesterday";
  if (day >= today - 7 * DAY_MS) return "Previous 7 days";
  if (day >= today - 30 * DAY_MS) return "Previous 30 days";
  return new Intl.DateTimeFormat(locale, { month: "long", year: "numeric" }).format(updatedAt);
}

/** Sessions must arrive newest first (as the API lists them); groups keep that order. */
export function groupSessions<TSession extends TListedSession>(sessions: TSession[], now: Date, locale?: string): TSessionGroup<TSession>[] {
  const groups: TSessionGroup<TSession>[] = [];
  for (const session of sessions) {
    const label = groupLabel(new Date(session.updatedAt), now, locale);
    const last = groups.at(-1);
    if (last?.label === label) last.sessions.push(session);
    else groups.push({ label, sessions: [session] });
  }
  return groups;
}

/** Every word of the search must appear in the title, ignoring case and accents. */
export function filterSessions<TSession extends TListedSession>(sessions: TSession[], search: string): TSession[] {
  const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const words = fold(search).split(/\s+/).filter(Boolean);
  if (!words.length) return sessions;
  return sessions.filter((session) => {
    const title = fold(session.title);
    return words.every((word) => title.includes(word));
  });
}
