import { existsSync } from "node:fs";

/**
 * Finds a Chromium for the e2e tests: CHROMIUM_PATH, then Debian's /usr/bin/chromium, then a
 * browser installed by Playwright itself. Returns undefined when there is none.
 */
export async function findChromium(): Promise<string | undefined> {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  try {
    const { chromium } = await import("playwright-core");
    const bundled = chromium.executablePath();
    if (bundled && existsSync(bundled)) return bundled;
  } catch {
    // playwright-core without a downloaded browser
  }
  return undefined;
}

export const HOW_TO_GET_CHROMIUM = `No Chromium found for the end-to-end tests. Any one of these works:
  - Debian/Ubuntu:  sudo apt-get install chromium
  - Playwright:     npx playwright install chromium   (needs internet access)
  - Or point CHROMIUM_PATH at an existing Chromium or Chrome binary.`;

/** Flags for a headless Chromium on a machine without internet or a GPU, possibly as root. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
