import Link from "next/link";
import { MobileMenuButton } from "@/components/app-shell/sidebar-context";
import { buttonClassName } from "@/components/ui/button";

/** A chat that does not exist or belongs to someone else (both are simply "not found"). */
export default function ChatNotFound() {
  return (
    <div className="flex min-h-dvh flex-col">
      <div className="flex h-14 items-center px-2 md:hidden">
        <MobileMenuButton />
      </div>
      <div className="mx-auto flex max-w-md flex-1 flex-col items-center justify-center px-4 py-12 text-center">
        <p className="font-mono text-sm text-neutral-500 dark:text-neutral-400">404</p>
        <h1 className="mt-2 text-xl font-semibold text-neutral-900 dark:text-neutral-50">Chat not found</h1>
        <p className="mt-2 text-sm text-neutral-600 dark:text-neutral-400">It may have been deleted, or the link is wrong.</p>
        <Link href="/" className={buttonClassName({ variant: "secondary", className: "mt-6" })}>
          Back to chats
        </Link>
      </div>
    </div>
  );
}
