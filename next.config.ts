import os from "node:os";
import type { NextConfig } from "next";
import { API_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./lib/http/security-headers";

/**
 * Hosts the development server answers as if they were localhost. Next.js blocks its dev-only
 * resources (the HMR websocket, dev chunks) for any other origin, and a page that cannot load them
 * never hydrates: its forms would then submit natively. `npm run dev` prints a "Network:" address,
 * so the machine's own addresses are allowed, plus any in XCLAW_DEV_ORIGINS (comma-separated host
 * names, `*.example.test` wildcards allowed). Production (`next start`) does not use this list.
 */
function developmentOrigins(): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .flatMap((entry) => (entry && entry.family === "IPv4" ? [entry.address] : []));
  const extra = (process.env.XCLAW_DEV_ORIGINS ?? "").split(",").map((host) => host.trim()).filter(Boolean);
  return [...new Set(["127.0.0.1", "localhost", os.hostname(), ...addresses, ...extra])];
}

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Server-only packages with native or WebAssembly parts stay out of the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@electric-sql/pglite", "@electric-sql/pglite-socket"],
  typedRoutes: false,
  turbopack: { root: import.meta.dirname },
  allowedDevOrigins: developmentOrigins(),
  // Pages get their Content-Security-Policy, with a per-request nonce, from proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
