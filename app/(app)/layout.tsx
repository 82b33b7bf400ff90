import { SessionListProvider, type TSessionListItem } from "@/components/app-shell/session-list-context";
import { Sidebar } from "@/components/app-shell/sidebar";
import { requirePageUser } from "@/lib/auth/page-session";
import { listSessions, toSessionSummary } from "@/lib/sessions/sessions";

/** Scheduled jobs and alert triage make a session per run; they are found on /jobs and in the bell, not among the chats. */
const UNATTENDED_TRIGGERS = ["job", "webhook"] as const;

export default async function AppLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  // Unattended runs (jobs, webhooks) have their own pages; workers (trigger agent) open from their parent chat's card.
  const sessions: TSessionListItem[] = (await listSessions({ userId: user.id, excludeTriggers: [...UNATTENDED_TRIGGERS, "agent"] }))
    .map(toSessionSummary)
    .map((session) => ({
    id: session.id,
    title: session.title,
    status: session.status,
    updatedAt: session.updatedAt,
  }));
  return (
    <SessionListProvider initialSessions={sessions}>
      <div className="min-h-dvh md:flex">
        <a
          href="#content"
          className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-lg focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow dark:focus:bg-neutral-900"
        >
          Skip to content
        </a>
        <Sidebar user={{ name: user.name, email: user.email, isAdmin: user.role === "ADMIN" }} />
        <main id="content" className="min-w-0 flex-1">
          {children}
        </main>
      </div>
    </SessionListProvider>
  );
}
