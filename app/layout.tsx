import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { Suspense } from "react";
import { FormFallbackNotice } from "@/components/forms/form-fallback";
import { RouteAnnouncer } from "@/components/route-announcer";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "xclaw", template: "%s · xclaw" },
  description: "A self-hosted, multi-user AI agent platform.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#0a0a0a" },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request: the Content-Security-Policy nonce (proxy.ts) only reaches
  // the page's scripts when the HTML is made for that request, never for a prerendered page.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-dvh bg-white text-neutral-900 antialiased dark:bg-neutral-950 dark:text-neutral-100">
        <Suspense fallback={null}>
          <FormFallbackNotice />
        </Suspense>
        {children}
        <RouteAnnouncer />
      </body>
    </html>
  );
}
