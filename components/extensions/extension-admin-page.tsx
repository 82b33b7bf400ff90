import Link from "next/link";
import type { ReactNode } from "react";
import { PageHeader, Section } from "@/components/ui/card";

/** The frame of an extension kind's admin page (plugins, skills): its header, the way to the other kinds, and its list. */
export function ExtensionAdminPage({ id, title, description, other, children }: { id: string; title: string; description: string; other: { href: string; label: string }; children: ReactNode }) {
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title={title} description={description} />
      <p className="mb-4 text-sm">
        <Link href={other.href} className="text-blue-700 underline-offset-2 hover:underline dark:text-blue-400">
          {other.label} →
        </Link>
      </p>
      <Section id={id} title={title}>
        {children}
      </Section>
    </div>
  );
}
