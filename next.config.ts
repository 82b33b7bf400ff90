import type { NextConfig } from "next";
import { developmentOrigins } from "./lib/http/dev-origins";
import { API_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // A self-contained server (.next/standalone/server.js), which the container image runs.
  // `npm run build` then copies the static assets next to it and removes what the build's file
  // tracing copied beyond the server (scripts/copy-standalone-assets.mjs says why).
  output: "standalone",
  // Server-only packages with native or WebAssembly parts stay out of the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@electric-sql/pglite", "@electric-sql/pglite-socket", "prom-client", "@opentelemetry/api", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http"],
  typedRoutes: false,
  turbopack: { root: import.meta.dirname },
  // The dev server also answers on 127.0.0.1, the host name and the LAN addresses (lib/http/dev-origins.ts).
  allowedDevOrigins: developmentOrigins(),
  // Pages get their Content-Security-Policy, with a per-request nonce, from proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
      { source: "/v1/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
