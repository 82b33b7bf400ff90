import { startInngestApp } from "./inngest-app";
import { crashJob } from "./jobs-fixtures";

/**
 * A real app process for the Inngest crash test (tests/inngest/jobs-crash.test.ts): serves the
 * crash fixture job on INNGEST_APP_PORT for the Inngest server at INNGEST_TEST_URL, under the app id
 * INNGEST_APP_ID, until it gets SIGTERM (or is killed).
 */
const app = await startInngestApp({
  baseUrl: process.env.INNGEST_TEST_URL!,
  appId: process.env.INNGEST_APP_ID!,
  jobs: [crashJob],
  port: Number(process.env.INNGEST_APP_PORT),
});
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
console.log(`jobs-worker ready ${app.url}`);
