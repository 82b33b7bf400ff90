import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { createJobRunner, type TJobRunner } from "@/lib/jobs/job-runner";
import { memoryJobs } from "@/lib/memory/jobs";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, useFakeProvider } from "./chat";

/**
 * Helpers for the memory and knowledge-base tests: a copy of xclaw.yaml with test settings (set
 * before anything reads the configuration, i.e. at the top of a test file), and the embedding
 * provider pointed at the fake LLM with its bag-of-words model.
 */
export function writeMemoryTestConfig(settings: Record<string, unknown> = {}): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), "xclaw-memory-"));
  const config = parseDocument(readFileSync(path.join(process.cwd(), "xclaw.yaml"), "utf8"));
  const defaults: Record<string, unknown> = {
    "browser.worker": "off",
    "sandbox.mode": "none",
    "embeddings.dimensions": 64,
    "memory.extraction.quietMinutes": 0,
    ...settings,
  };
  for (const [key, value] of Object.entries(defaults)) config.setIn(key.split("."), value);
  const file = path.join(directory, "xclaw.yaml");
  writeFileSync(file, String(config));
  process.env.XCLAW_CONFIG = file;
  resetEnvironment();
  return file;
}

export const SEMANTIC_MODEL = "fake-semantic-a";

/** Embeddings from the fake LLM (bag-of-words vectors), separately from the chat provider settings. */
export function useFakeEmbeddings(fake: TFakeLlm, model = SEMANTIC_MODEL) {
  process.env.EMBEDDINGS_BASE_URL = fake.openaiBaseUrl;
  process.env.EMBEDDINGS_API_KEY = "test-embeddings-key";
  process.env.EMBEDDINGS_MODEL = model;
  resetEnvironment();
}

export function clearEmbeddingEnvironment() {
  for (const key of ["EMBEDDINGS_BASE_URL", "EMBEDDINGS_API_KEY", "EMBEDDINGS_MODEL"]) delete process.env[key];
  resetEnvironment();
}

/** Embedding requests the fake received. */
export function embeddingRequests(fake: TFakeLlm) {
  return fake.requests.filter((request) => request.api === "openai-embeddings");
}

/** Chat requests (the model), without the embedding requests. */
export function chatRequests(fake: TFakeLlm) {
  return fake.requests.filter((request) => request.api !== "openai-embeddings");
}

/**
 * The usual hooks of a memory test file: a fake LLM that serves both chat and embeddings (pointed
 * at before each test, reset after), and with `jobs`, an embedded runner for the memory jobs.
 * `services.fake` and `services.runner` are set once the file's beforeAll has run.
 */
export function setUpMemoryTestServices(options: { jobs?: boolean; chat?: boolean } = {}): { fake: TFakeLlm; runner: TJobRunner } {
  const services = {} as { fake: TFakeLlm; runner: TJobRunner };
  const chat = options.chat ?? true;
  beforeAll(async () => {
    services.fake = await startFakeLlm();
    if (options.jobs) {
      services.runner = createJobRunner({ jobs: [...memoryJobs], pollIntervalMs: 100, leaseMs: 3_000, retryBaseDelayMs: 20, cron: false });
      await services.runner.start();
    }
  });
  afterAll(async () => {
    await services.runner?.stop({ graceMs: 1_000 });
    await services.fake?.close();
  });
  beforeEach(() => {
    if (chat) useFakeProvider(services.fake);
    useFakeEmbeddings(services.fake);
  });
  afterEach(() => {
    services.fake.reset();
    if (chat) clearProviderEnvironment();
    clearEmbeddingEnvironment();
  });
  return services;
}
