/**
 * The caller's IP for per-IP rate limits. Next.js appends the socket address to
 * `x-forwarded-for`; each trusted reverse proxy in front (XCLAW_TRUSTED_PROXIES, default 0) appends
 * one more. Entries further left are chosen by the client and cannot be trusted.
 */
export function clientIp(headers: Headers | Record<string, string | string[] | undefined>): string {
  const read = (name: string) => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const value = headers[name];
    return Array.isArray(value) ? value.join(",") : value;
  };
  const hops = (read("x-forwarded-for") ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  const trusted = Math.max(0, Number(process.env.XCLAW_TRUSTED_PROXIES || 0));
  return hops[hops.length - 1 - trusted] ?? hops[0] ?? read("x-real-ip") ?? "unknown";
}
