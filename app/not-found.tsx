import type { Metadata } from "next";
import Link from "next/link";
import { buttonClassName } from "@/components/ui/button";

export const metadata: Metadata = { title: "Page not found" };

/** Any address that is not a page: branded, says so plainly, and offers the way back. */
export default function NotFound() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-neutral-50 px-4 py-12 text-center dark:bg-neutral-950">
      <Link href="/" className="mb-8 flex items-center gap-2 rounded-lg text-xl font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-blue-600">
        <span aria-hidden="true" className="grid size-8 place-items-center rounded-lg bg-neutral-900 text-sm text-white dark:bg-neutral-100 dark:text-neutral-900">
          x
        </span>
        xclaw
      </Link>
      <p className="font-mono text-sm text-neutral-500 dark:text-neutral-400">404</p>
      <h1 className="mt-2 text-2xl font-semibold text-neutral-900 dark:text-neutral-50">This page does not exist</h1>
      <p className="mt-2 max-w-sm text-sm text-neutral-600 dark:text-neutral-400">The address may be mistyped, or what was here has been removed.</p>
      <Link href="/" className={buttonClassName({ className: "mt-6" })}>
        Back to your chats
      </Link>
    </main>
  );
}
