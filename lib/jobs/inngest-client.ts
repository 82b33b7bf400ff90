import { Inngest, type Logger } from "inngest";
import { createLogger } from "@/lib/observability/logger";

/**
 * The Inngest client for jobs.runner: inngest. It reads INNGEST_EVENT_KEY, INNGEST_SIGNING_KEY,
 * INNGEST_BASE_URL (self-hosted server) and INNGEST_DEV from the environment when it is created.
 * Created on first use, so an app on the embedded runner never constructs it.
 */
let client: Inngest | undefined;

export const INNGEST_APP_ID = "xclaw";

/** The SDK's logs as our JSON lines (with secret redaction), instead of its console logger. */
export function inngestLogger(): Logger {
  const log = createLogger("inngest");
  const write = (level: "debug" | "info" | "warn" | "error") => (...args: unknown[]) => {
    const message = args.find((arg): arg is string => typeof arg === "string") ?? "inngest";
    const fields: Record<string, unknown> = {};
    for (const arg of args) {
      if (arg instanceof Error) fields.error = arg;
      else if (arg && typeof arg === "object") Object.assign(fields, arg);
    }
    log[level](message, fields);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

export function inngestClient(): Inngest {
  client ??= new Inngest({ id: INNGEST_APP_ID, logger: inngestLogger() });
  return client;
}
