import { Inngest } from "inngest";

/**
 * The Inngest client for jobs.runner: inngest. It reads INNGEST_EVENT_KEY, INNGEST_SIGNING_KEY,
 * INNGEST_BASE_URL (self-hosted server) and INNGEST_DEV from the environment when it is created.
 * Created on first use, so an app on the embedded runner never constructs it.
 */
let client: Inngest | undefined;

export const INNGEST_APP_ID = "xclaw";

export function inngestClient(): Inngest {
  client ??= new Inngest({ id: INNGEST_APP_ID });
  return client;
}
