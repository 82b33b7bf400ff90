/**
 * What a job body throws to steer its retries, on both backends: NonRetriableError fails the run at
 * once (trying again would fail the same way), RetryAfterError retries it no sooner than it says.
 * They are Inngest's own classes, which Inngest acts on as they are and the embedded runner
 * recognises too; domain code takes them from here, so only the job engine imports `inngest`
 * (eslint.config.mjs).
 */
export { NonRetriableError, RetryAfterError } from "inngest";
