/**
 * The e2e tests find and launch Chromium exactly as the browser worker does (CHROMIUM_PATH, then
 * /usr/bin/chromium, then Playwright's own browser), so there is one list of places and flags.
 */
export { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from "../../workers/browser/chromium";

export const HOW_TO_GET_CHROMIUM = `No Chromium found for the end-to-end tests. Any one of these works:
  - Debian/Ubuntu:  sudo apt-get install chromium
  - Playwright:     npx playwright install chromium   (needs internet access)
  - Or point CHROMIUM_PATH at an existing Chromium or Chrome binary.`;
