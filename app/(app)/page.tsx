import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/page-session";

export const metadata: Metadata = { title: "Chat" };

export default async function HomePage() {
  const user = await requirePageUser();
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-3.5rem)] max-w-2xl flex-col items-center justify-center px-4 py-12 text-center md:min-h-dvh">
      <span aria-hidden="true" className="grid size-12 place-items-center rounded-2xl bg-neutral-900 text-lg font-semibold text-white dark:bg-neutral-100 dark:text-neutral-900">
        x
      </span>
      <h1 className="mt-6 text-2xl font-semibold tracking-tight text-neutral-900 sm:text-3xl dark:text-neutral-50">
        Welcome{user.name ? `, ${user.name}` : ""}
      </h1>
      <p className="mt-3 text-neutral-600 dark:text-neutral-400">Chat arrives in the next release.</p>
      <p className="mt-1 text-sm text-neutral-500 dark:text-neutral-500">
        Meanwhile, your profile, password and API tokens are in the settings.
      </p>
    </div>
  );
}
