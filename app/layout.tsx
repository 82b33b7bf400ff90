import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import { connection } from "next/server";
import { parseTheme, THEME_COOKIE, themeClass } from "@/components/app-shell/theme";
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
  // The theme the person chose (a cookie), so the first paint is already in it.
  const theme = themeClass(parseTheme((await cookies()).get(THEME_COOKIE)?.value));
  return (
    <html lang="en" className={theme}>
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
