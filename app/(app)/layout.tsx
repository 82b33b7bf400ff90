import { SessionListProvider, type TSessionListItem } from "@/components/app-shell/session-list-context";
import { Sidebar } from "@/components/app-shell/sidebar";
import { requirePageUser } from "@/lib/auth/page-session";
import { listSessions, toSessionSummary } from "@/lib/sessions/sessions";

export default async function AppLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  // Multi-agent workers (trigger agent) are opened from their parent chat's card, not listed.
  const sessions: TSessionListItem[] = (await listSessions({ userId: user.id }))
    .filter((session) => session.trigger !== "AGENT")
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
