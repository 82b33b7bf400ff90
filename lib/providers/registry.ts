import { getBehaviourConfig, type TBehaviourConfig } from "@/lib/config/behaviour";
import { environment, type TEnvironment } from "@/lib/config/environment";
import { AnthropicProvider } from "./anthropic-provider";
import { OpenAiProvider } from "./openai-provider";
import { withTextToolProtocol } from "./text-tool-protocol";
import type { TModelChoice, TProviderStatus } from "@/lib/wire/providers";
import type { TProvider, TProviderName } from "./types";
import type { TRetryPolicy } from "./provider-chain";

/**
 * Builds the provider chain from xclaw.yaml and the environment. A provider is usable when it has
 * an API key or a base URL (a local OpenAI-compatible server such as Ollama needs no key);
 * others are skipped, so a half-configured machine still works with what it has.
 */
function chainOrder(config: TBehaviourConfig): TProviderName[] {
  const override = environment().XCLAW_PROVIDERS;
  return override?.length ? override : config.providers.chain;
}

function build(name: TProviderName, config: TBehaviourConfig, modelOverride?: string): TProvider | undefined {
  const variables = environment();
  if (name === "openai") {
    const apiKey = variables.OPENAI_API_KEY;
    const baseUrl = variables.OPENAI_BASE_URL;
    if (!apiKey && !baseUrl) return undefined;
    const settings = config.providers.openai;
    const provider = new OpenAiProvider({
      apiKey,
      baseUrl,
      model: modelOverride ?? variables.OPENAI_MODEL ?? settings.model,
      toolCalling: settings.toolCalling,
      contextWindowTokens: settings.contextWindowTokens,
      maxOutputTokens: settings.maxOutputTokens,
    });
    return settings.toolCalling === "text" ? withTextToolProtocol(provider) : provider;
  }
  const apiKey = variables.ANTHROPIC_API_KEY;
  const baseUrl = variables.ANTHROPIC_BASE_URL;
  if (!apiKey && !baseUrl) return undefined;
  const settings = config.providers.anthropic;
  const provider = new AnthropicProvider({
    apiKey,
    baseUrl,
    model: modelOverride ?? variables.ANTHROPIC_MODEL ?? settings.model,
    contextWindowTokens: settings.contextWindowTokens,
    maxOutputTokens: settings.maxOutputTokens,
  });
  return settings.toolCalling === "text" ? withTextToolProtocol(provider) : provider;
}

let cached: { config: TBehaviourConfig; variables: TEnvironment; providers: TProvider[] } | undefined;

/** The chain for a run. SDK clients are reused while the configuration (and the parsed environment) stays the same. */
export function configuredProviders(config = getBehaviourConfig()): TProvider[] {
  const variables = environment();
  if (cached && cached.config === config && cached.variables === variables) return cached.providers;
  const providers = chainOrder(config)
    .map((name) => build(name, config))
    .filter((provider): provider is TProvider => provider !== undefined);
  cached = { config, variables, providers };
  return providers;
}

/** The chain with another model on its first provider (an agent profile's model); not cached. */
export function providersWithModel(model: string, config = getBehaviourConfig()): TProvider[] {
  const [first] = chainOrder(config);
  const replaced = first ? build(first, config, model) : undefined;
  const rest = configuredProviders(config).filter((provider) => provider.name !== first);
  return replaced ? [replaced, ...rest] : rest;
}

/**
 * The models people may pick per chat (the model picker): for each configured provider in chain
 * order, its default model and the extra ones listed in `providers.<name>.models`. A choice is
 * stored on the session as "<provider>:<model>".
 */
export function modelChoices(config = getBehaviourConfig()): TModelChoice[] {
  return configuredProviders(config).flatMap((provider, index) => {
    const models = [provider.model, ...config.providers[provider.name].models.filter((model) => model !== provider.model)];
    return models.map((model, position) => ({ id: `${provider.name}:${model}`, provider: provider.name, model, isDefault: index === 0 && position === 0 }));
  });
}

const chosenProviders = new Map<string, { base: TProvider; provider: TProvider }>();

/**
 * The chain for a chat whose owner picked a model: that provider, with that model, first; the rest
 * of the chain stays behind it as the fallback. A choice that is no longer offered (the
 * configuration changed) is ignored. Providers a test injected are only reordered.
 */
export function providersForChoice(chain: TProvider[], choice: string | null | undefined, config = getBehaviourConfig()): TProvider[] {
  if (!choice) return chain;
  const offered = modelChoices(config).find((option) => option.id === choice);
  if (!offered) return chain;
  const index = chain.findIndex((provider) => provider.name === offered.provider);
  if (index < 0) return chain;
  const base = chain[index]!;
  let chosen = base;
  if (base.model !== offered.model && configuredProviders(config).includes(base)) {
    const cachedChoice = chosenProviders.get(choice);
    chosen = cachedChoice?.base === base ? cachedChoice.provider : (build(offered.provider, config, offered.model) ?? base);
    chosenProviders.set(choice, { base, provider: chosen });
  }
  return [chosen, ...chain.filter((_, position) => position !== index)];
}

/** For the UI: which providers are in the chain and whether each is configured. */
export function providerStatus(config = getBehaviourConfig()): TProviderStatus[] {
  return chainOrder(config).map((name) => {
    const provider = build(name, config);
    return { name, model: provider?.model ?? config.providers[name].model, configured: provider !== undefined };
  });
}

export function retryPolicy(config = getBehaviourConfig()): TRetryPolicy {
  return {
    retries: config.providers.retries,
    baseDelayMs: config.providers.retryBaseDelayMs,
    maxDelayMs: config.providers.retryMaxDelayMs,
    attemptTimeoutMs: config.providers.attemptTimeoutSeconds * 1000,
  };
}
