import { getChannelAccountOrThrow, openAccount } from "./channel-accounts";
import { describePlatformError } from "./platform-request";
import { PLATFORMS } from "./platforms";

/**
 * The admin's "test": asks the platform's token endpoint for a token with the stored app id and
 * secret (never the cached token), so a wrong secret or an unreachable API shows at once.
 */
export async function testChannelAccount(id: string): Promise<{ ok: boolean; error: string | null }> {
  const account = openAccount(await getChannelAccountOrThrow(id));
  try {
    await PLATFORMS[account.kind].checkCredentials(account);
    return { ok: true, error: null };
  } catch (error) {
    return { ok: false, error: describePlatformError(error) };
  }
}
