/**
 * Runs once when the Next.js server process starts (`next dev` and `next start` alike), before
 * requests are handled. Stamps each request with its real TCP peer address so rate limits cannot
 * be dodged with a forged X-Forwarded-For (lib/auth/client-ip.ts explains the mechanism).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { installPeerAddressHook } = await import("./lib/auth/client-ip");
    installPeerAddressHook();
  }
}
