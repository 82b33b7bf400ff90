import path from "node:path";

/** Where xclaw keeps its files (embedded database, generated secret, later workspaces). */
export function dataDirectory(): string {
  return path.resolve(process.env.XCLAW_DATA_DIR || path.join(process.cwd(), ".data"));
}

export function appPort(): number {
  const port = Number(process.env.PORT || 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`PORT must be a number between 1 and 65535, got "${process.env.PORT}"`);
  }
  return port;
}

export function authSecret(): string {
  const secret = process.env.NEXTAUTH_SECRET;
  if (!secret) {
    throw new Error("NEXTAUTH_SECRET is not set. `npm run dev` and `npm start` create one in the data directory; set it yourself when you run Next.js directly.");
  }
  return secret;
}

/** The public origin of the app, used for redirects and the same-origin check. */
export function publicOrigin(): string | undefined {
  const url = process.env.NEXTAUTH_URL;
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export function appVersion(): string {
  return process.env.XCLAW_VERSION || process.env.npm_package_version || "0.1.0";
}
