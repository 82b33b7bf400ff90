import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { NewChatButton } from "@/components/chat/new-chat-button";
import { NoProviderNotice } from "@/components/chat/no-provider-notice";
import { providerStatus } from "@/lib/providers/registry";
import { requirePageUser } from "@/lib/auth/page-session";
import { listSessions } from "@/lib/sessions/sessions";

export const metadata: Metadata = { title: "Chat" };

export default async function HomePage() {
  const user = await requirePageUser();
  // The latest chat of the person's own, not a worker a chat of theirs delegated to.
  const latest = (await listSessions({ userId: user.id, limit: 50 })).find((session) => session.trigger !== "AGENT");
  if (latest) redirect(`/chat/${latest.id}`);
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-3.5rem)] max-w-2xl flex-col items-center justify-center px-4 py-12 text-center md:min-h-dvh">
      <span aria-hidden="true" className="grid size-12 place-items-center rounded-2xl bg-neutral-900 text-lg font-semibold text-white dark:bg-neutral-100 dark:text-neutral-900">
        x
      </span>
      <h1 className="mt-6 text-2xl font-semibold tracking-tight text-neutral-900 sm:text-3xl dark:text-neutral-50">
        Welcome{user.name ? `, ${user.name}` : ""}
      </h1>
      <p className="mt-3 max-w-md text-neutral-600 dark:text-neutral-400">
        Start a chat with the agent. It streams its answers, can use tools, and keeps every step so you can roll back or fork a
        conversation later.
      </p>
      {providerStatus().some((provider) => provider.configured) ? null : (
        <div className="mt-6 w-full max-w-md text-left">
          <NoProviderNotice isAdmin={user.role === "ADMIN"} />
        </div>
      )}
      <NewChatButton className="mt-8 w-full max-w-xs" />
      <p className="mt-6 text-sm text-neutral-500 dark:text-neutral-400">
        Tip: type <code className="rounded bg-neutral-100 px-1 py-0.5 font-mono text-xs dark:bg-neutral-800">/help</code> in a chat for commands.
      </p>
    </div>
  );
}
