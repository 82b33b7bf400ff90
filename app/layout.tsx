import type { Metadata, Viewport } from "next";
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

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-dvh bg-white text-neutral-900 antialiased dark:bg-neutral-950 dark:text-neutral-100">
        {children}
        <RouteAnnouncer />
      </body>
    </html>
  );
}
