/**
 * Model providers as the server reports them to the browser (GET /api/providers, GET /api/models,
 * the chat page's props): types only, so client components may import this module. The provider
 * names are the server's own (lib/providers), defined here once.
 */
export type TProviderName = "openai" | "anthropic";

/** A provider of the chain and whether it is configured (lib/providers/registry.ts, providerStatus). */
export type TProviderStatus = { name: TProviderName; model: string; configured: boolean };

/** A model people may pick for a chat, stored on the session as "<provider>:<model>" (modelChoices). */
export type TModelChoice = { id: string; provider: TProviderName; model: string; isDefault: boolean };
