import Link from "next/link";

export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-neutral-50 px-4 py-10 dark:bg-neutral-950">
      <div className="w-full max-w-sm">
        <Link
          href="/"
          className="mb-8 flex items-center justify-center gap-2 rounded-lg text-xl font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-blue-600"
        >
          <span aria-hidden="true" className="grid size-8 place-items-center rounded-lg bg-neutral-900 text-sm text-white dark:bg-neutral-100 dark:text-neutral-900">
            x
          </span>
          xclaw
        </Link>
        {children}
      </div>
    </main>
  );
}
