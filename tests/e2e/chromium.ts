/**
 * The e2e tests find and launch Chromium exactly as the browser worker does (CHROMIUM_PATH, then
 * /usr/bin/chromium, then Playwright's own browser), so there is one list of places and flags.
 */
export { CHROMIUM_ARGS, findChromium, noChromiumMessage } from "../../lib/browser/chromium";
