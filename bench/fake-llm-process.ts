/**
 * The fake LLM in a process of its own, for load benchmarks: the client side of a benchmark and
 * the model must not share one event loop, or the benchmark measures itself. Prints its URL on the
 * first line; scripted over HTTP (`/_control/script`, `/_control/requests`).
 */
import { startFakeLlm } from "../tests/fake-llm/server";

const fake = await startFakeLlm();
process.stdout.write(`${fake.url}\n`);
process.on("SIGTERM", () => void fake.close().then(() => process.exit(0)));
