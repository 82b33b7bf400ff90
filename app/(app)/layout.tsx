import { cookies } from "next/headers";
import { SessionListProvider } from "@/components/app-shell/session-list-context";
import { Sidebar } from "@/components/app-shell/sidebar";
import { SidebarProvider } from "@/components/app-shell/sidebar-context";
import { parseTheme, THEME_COOKIE } from "@/components/app-shell/theme";
import { LightboxProvider } from "@/components/ui/image-lightbox";
import { requirePageUser } from "@/lib/auth/page-session";
import { listSidebarSessions, toSessionSummary } from "@/lib/sessions/sessions";


export default async function AppLayout({ children }: { children: React.ReactNode }) {
  const user = await requirePageUser();
  const sessions = (await listSidebarSessions({ userId: user.id })).map(toSessionSummary);
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <SessionListProvider initialSessions={sessions}>
      <SidebarProvider panelId="app-sidebar">
        <LightboxProvider>
          <div className="min-h-dvh md:flex">
            <a
              href="#content"
              className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-lg focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow dark:focus:bg-neutral-900"
            >
              Skip to content
            </a>
            <Sidebar user={{ name: user.name, email: user.email, isAdmin: user.role === "ADMIN" }} theme={theme} />
            <main id="content" className="min-w-0 flex-1">
              {children}
            </main>
          </div>
        </LightboxProvider>
      </SidebarProvider>
    </SessionListProvider>
  );
}
