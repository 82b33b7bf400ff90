import Link from "next/link";
import { buttonClassName } from "@/components/ui/button";

export default function ChatNotFound() {
  return (
    <div className="mx-auto flex min-h-[calc(100dvh-3.5rem)] max-w-md flex-col items-center justify-center px-4 py-12 text-center md:min-h-dvh">
      <h1 className="text-xl font-semibold text-neutral-900 dark:text-neutral-50">Chat not found</h1>
      <p className="mt-2 text-sm text-neutral-600 dark:text-neutral-400">It may have been deleted, or the link is wrong.</p>
      <Link href="/" className={buttonClassName({ variant: "secondary", className: "mt-6" })}>
        Back to chats
      </Link>
    </div>
  );
}
