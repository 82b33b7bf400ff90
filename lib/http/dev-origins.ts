import os from "node:os";
import { environment } from "../config/environment";

/**
 * Hosts the development server answers as if they were localhost. Next.js blocks its dev-only
 * resources (the HMR websocket, dev chunks) for any other origin, and a page that cannot load them
 * never hydrates: its forms would then submit natively. `npm run dev` prints a "Network:" address,
 * so the machine's own addresses are allowed, plus any in XCLAW_DEV_ORIGINS (comma-separated host
 * names, `*.example.test` wildcards allowed). Production (`next start`) does not use this list.
 * Relative imports only, of files without app imports: next.config.ts loads this file before the
 * app is built, without the "@/" path alias.
 */
export function developmentOrigins(extra: string[] = environment().XCLAW_DEV_ORIGINS): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .flatMap((entry) => (entry && entry.family === "IPv4" ? [entry.address] : []));
  return [...new Set(["127.0.0.1", "localhost", os.hostname(), ...addresses, ...extra])];
}
