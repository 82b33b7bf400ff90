import { CHANNEL_ACCOUNTS_COLUMN } from "@/lib/channels/channel-accounts";
import { WEBHOOK_ENDPOINTS_COLUMN } from "@/lib/chronos/webhook-endpoints";
import type { TSealedColumn } from "@/lib/config/secret-box";
import { NOTIFICATION_CHANNELS_COLUMN } from "@/lib/notifications/channels";
import { PLUGIN_SECRETS_COLUMN } from "@/lib/plugins/secret-config";

/**
 * Every column that holds values sealed under NEXTAUTH_SECRET, for `npm run xclaw -- rotate-secret`.
 * A feature that stores a sealed value exports its column and adds it here.
 */
export const SEALED_COLUMNS: readonly TSealedColumn[] = [NOTIFICATION_CHANNELS_COLUMN, WEBHOOK_ENDPOINTS_COLUMN, PLUGIN_SECRETS_COLUMN, CHANNEL_ACCOUNTS_COLUMN];
