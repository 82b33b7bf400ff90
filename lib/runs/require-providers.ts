import { AppError } from "@/lib/errors";
import { configuredProviders } from "@/lib/providers/registry";
import type { TProvider } from "@/lib/providers/types";

const NO_PROVIDER =
  "No model provider is configured. An administrator needs to set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL (see the README).";

/** The configured providers, or a clear refusal before anything is written when there are none. */
export function requireProviders(providers: TProvider[] = configuredProviders()): TProvider[] {
  if (!providers.length) throw new AppError("unavailable", NO_PROVIDER);
  return providers;
}
