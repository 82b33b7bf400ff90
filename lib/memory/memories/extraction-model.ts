import { NonRetriableError } from "@/lib/jobs/job-errors";
import { z } from "zod";
import { completeText, ProviderChainError } from "@/lib/providers/provider-chain";
import { configuredProviders, retryPolicy } from "@/lib/providers/registry";
import type { TProvider } from "@/lib/providers/types";

/**
 * One JSON answer from the configured model chain, for the extraction job. The chain retries 429,
 * 5xx and network errors itself; when it still fails only with other 4xx answers (a request the
 * provider refuses, such as one over its size limit), the job must not try again: the error is
 * NonRetriableError. Transient failures are thrown as they are, so the job retries later.
 */
export async function completeJson<T>(options: { system: string; user: string; schema: z.ZodType<T>; maxOutputTokens?: number; signal?: AbortSignal; providers?: TProvider[] }): Promise<T> {
  const providers = options.providers ?? configuredProviders();
  if (!providers.length) throw new NonRetriableError("No model provider is configured, so memories cannot be extracted.");
  let text: string;
  try {
    text = await completeText(providers, { system: options.system, user: options.user, maxOutputTokens: options.maxOutputTokens ?? 1_500, signal: options.signal }, retryPolicy());
  } catch (error) {
    if (error instanceof ProviderChainError && error.failures.length && error.failures.every((failure) => /^HTTP 4\d\d/.test(failure.error) && !/^HTTP (408|409|429)/.test(failure.error))) {
      throw new NonRetriableError(error.message, { cause: error });
    }
    throw error;
  }
  return parseJsonAnswer(text, options.schema);
}

/** The JSON object in a model's answer (code fences and chatter around it are tolerated). */
export function parseJsonAnswer<T>(text: string, schema: z.ZodType<T>): T {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  let value: unknown;
  try {
    value = JSON.parse(unfenced.slice(start, end + 1));
  } catch {
    throw new NonRetriableError(`The model did not answer with the JSON object asked for: ${text.slice(0, 200)}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new NonRetriableError(`The model's JSON did not have the expected shape: ${z.prettifyError(parsed.error).slice(0, 300)}`);
  return parsed.data;
}
