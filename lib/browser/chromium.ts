import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { environment } from "@/lib/config/environment";

/**
 * Which Chromium the worker drives: CHROMIUM_PATH, then the distribution's package
 * (`apt-get install chromium`), then a browser Playwright downloaded itself, if any.
 */
export function findChromium(): string | undefined {
  const candidates = [environment().CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  try {
    const bundled = chromium.executablePath();
    if (bundled && existsSync(bundled)) return bundled;
  } catch {
    // playwright-core without a downloaded browser
  }
  return undefined;
}

/** What to do when no Chromium is found; `purpose` names what needed it ("the browser worker"). */
export const noChromiumMessage = (purpose: string) => `No Chromium found for ${purpose}. Any one of these works:
  - Debian/Ubuntu:  sudo apt-get install chromium
  - Playwright:     npx playwright install chromium   (needs internet access)
  - Or point CHROMIUM_PATH at an existing Chromium or Chrome binary.`;

/**
 * Headless on a server without a GPU, possibly as root, with nothing calling home. WebRTC may
 * only use proxied connections, so it cannot open UDP paths around the egress proxy.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  // Browser features that call Google on their own (and would only clutter the egress log).
  "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter,Translate,InterestFeedContentSuggestions,CalculateNativeWinOcclusion",
  "--disable-client-side-phishing-detection",
  "--disable-domain-reliability",
  "--metrics-recording-only",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
];
