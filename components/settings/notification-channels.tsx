"use client";

import { useId, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { ShownError, useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import { inputClassName, TextField } from "@/components/ui/text-field";
import type { TNotificationChannelKind, TNotificationChannelView } from "@/lib/wire/chronos";
import { SecretOnce } from "./secret-once";

/**
 * Settings → Notifications: where notifications go besides the in-app bell. Each channel shows
 * its last error (deliveries are retried, and a channel that keeps failing says why here) and has
 * "Send test".
 */
const KINDS: { value: TNotificationChannelKind; label: string }[] = [
  { value: "feishu", label: "Feishu bot" },
  { value: "webhook", label: "Webhook (signed JSON)" },
  { value: "log", label: "Server log" },
];

const KIND_NAMES: Record<TNotificationChannelKind, string> = { feishu: "Feishu bot", webhook: "Webhook", log: "Server log" };

export function NotificationChannels({ initialChannels }: { initialChannels: TNotificationChannelView[] }) {
  const id = useId();
  const [channels, setChannels] = useState(initialChannels);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<TNotificationChannelKind>("feishu");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [shownSecret, setShownSecret] = useState<{ channel: string; secret: string }>();
  // The list's actions (Send test, Switch on/off, Delete) say how they went above the form; adding says it in the form.
  const { pending: pendingId, feedback: notice, run, announce } = useAction();
  const creation = useAction();
  const deletion = useConfirmation<TNotificationChannelView>();

  const replace = (channel: TNotificationChannelView) => setChannels((rows) => rows.map((row) => (row.id === channel.id ? channel : row)));

  const onCreate = creation.submit("create", async () => {
    const body = { name, kind, ...(kind === "log" ? {} : { url }), ...(secret.trim() && kind !== "log" ? { secret: secret.trim() } : {}) };
    const created = await apiRequest<{ channel: TNotificationChannelView; secret?: string }>("/api/notification-channels", { method: "POST", body });
    setChannels((rows) => [...rows, created.channel]);
    if (created.secret) setShownSecret({ channel: created.channel.name, secret: created.secret });
    setName("");
    setUrl("");
    setSecret("");
    return `"${created.channel.name}" was added. Send a test to check it.`;
  });

  const sendTest = (channel: TNotificationChannelView) =>
    run(channel.id, async () => {
      const result = await apiRequest<{ ok: boolean; error: string | null; channel: TNotificationChannelView }>(`/api/notification-channels/${encodeURIComponent(channel.id)}/test`, { method: "POST" });
      replace(result.channel);
      if (!result.ok) throw new ShownError(`The test to "${channel.name}" failed: ${result.error}`);
      return `A test notification went to "${channel.name}".`;
    });

  const setEnabled = (channel: TNotificationChannelView, enabled: boolean) =>
    run(channel.id, async () => {
      const result = await apiRequest<{ channel: TNotificationChannelView }>(`/api/notification-channels/${encodeURIComponent(channel.id)}`, { method: "PATCH", body: { enabled } });
      replace(result.channel);
    });

  const confirmDelete = deletion.confirm(async (channel) => {
    await apiRequest(`/api/notification-channels/${encodeURIComponent(channel.id)}`, { method: "DELETE" });
    setChannels((rows) => rows.filter((row) => row.id !== channel.id));
    announce(`"${channel.name}" was deleted.`);
  });

  return (
    <div className="space-y-6">
      <p className="max-w-2xl text-sm text-neutral-600 dark:text-neutral-400">
        Notifications always appear under the bell. Add a Feishu group bot (its webhook URL, and its signing secret if the bot has signature verification on), any webhook that takes
        signed JSON, or the server log. The same title is sent once per 30 minutes, and a flood is cut off after an hourly limit.
      </p>

      {channels.length ? (
        <ul aria-label="Your notification channels" className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {channels.map((channel) => (
            <li key={channel.id} data-testid="notification-channel" className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-start sm:justify-between">
              <div className="min-w-0">
                <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">
                  {channel.name}
                  <span className="ml-2 text-xs font-normal text-neutral-500 dark:text-neutral-400">{KIND_NAMES[channel.kind]}</span>
                  {channel.enabled ? null : <span className="ml-2 rounded bg-neutral-200 px-1.5 py-0.5 text-xs font-normal text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300">off</span>}
                </p>
                {channel.target ? <p className="mt-0.5 truncate font-mono text-xs text-neutral-500 dark:text-neutral-400">{channel.target}</p> : null}
                {channel.lastError ? (
                  <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">
                    Last error (<DateTime iso={channel.lastErrorAt} />): {channel.lastError}
                  </p>
                ) : null}
                {channel.lastSuccessAt ? (
                  <p className="mt-0.5 text-xs text-neutral-500 dark:text-neutral-400">
                    Last delivered <DateTime iso={channel.lastSuccessAt} />
                  </p>
                ) : null}
              </div>
              <div className="flex shrink-0 flex-wrap gap-2">
                <Button size="sm" variant="secondary" pending={pendingId === channel.id} aria-label={`Send a test to ${channel.name}`} onClick={() => void sendTest(channel)}>
                  Send test
                </Button>
                <Button size="sm" variant="ghost" disabled={pendingId === channel.id} aria-label={`${channel.enabled ? "Switch off" : "Switch on"} ${channel.name}`} onClick={() => void setEnabled(channel, !channel.enabled)}>
                  {channel.enabled ? "Switch off" : "Switch on"}
                </Button>
                <Button size="sm" variant="danger" aria-label={`Delete ${channel.name}`} onClick={() => deletion.ask(channel)}>
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No channels yet: notifications only appear under the bell.</p>
      )}

      <FeedbackAlert feedback={notice} />
      {shownSecret ? (
        <SecretOnce
          title={`Signing secret of "${shownSecret.channel}"`}
          secret={shownSecret.secret}
          onDismiss={() => setShownSecret(undefined)}
          hint={
            <>
              Requests carry <code className="font-mono">X-Xclaw-Timestamp</code> and <code className="font-mono">X-Xclaw-Signature: sha256=hex(HMAC-SHA256(secret, timestamp + &quot;.&quot; + body))</code>.
            </>
          }
        />
      ) : null}

      <form onSubmit={onCreate} className="space-y-3 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" aria-label="Add a notification channel" noValidate>
        <h3 className="text-sm font-semibold text-neutral-900 dark:text-neutral-100">Add a channel</h3>
        <div className="grid gap-3 sm:grid-cols-2">
          <TextField label="Channel name" name="channelName" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} placeholder="e.g. Ops group" />
          <div>
            <label htmlFor={`${id}-kind`} className="mb-1.5 block text-sm font-medium text-neutral-800 dark:text-neutral-200">
              Kind
            </label>
            <select id={`${id}-kind`} value={kind} onChange={(event) => setKind(event.target.value as TNotificationChannelKind)} className={inputClassName}>
              {KINDS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        {kind !== "log" ? (
          <>
            <TextField
              label="Webhook URL"
              name="channelUrl"
              type="url"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              placeholder={kind === "feishu" ? "https://open.feishu.cn/open-apis/bot/v2/hook/…" : "https://example.com/hooks/xclaw"}
              hint="Public addresses only; it is stored encrypted and never shown again in full."
            />
            <TextField
              label={kind === "feishu" ? "Signing secret" : "Signing secret"}
              name="channelSecret"
              type="password"
              autoComplete="off"
              optional
              value={secret}
              onChange={(event) => setSecret(event.target.value)}
              hint={kind === "feishu" ? "Only if the bot has signature verification on (Feishu: bot settings → Security)." : "Leave empty to have one generated (shown once)."}
            />
          </>
        ) : null}
        <FeedbackAlert feedback={creation.feedback} />
        <div className="flex justify-end">
          <Button type="submit" pending={creation.busy}>
            Add channel
          </Button>
        </div>
      </form>

      <ConfirmDialog {...deletion.dialog} title={`Delete "${deletion.subject?.name ?? ""}"?`} confirmLabel="Delete channel" destructive onConfirm={confirmDelete}>
        Jobs and endpoints that used it keep notifying through their other channels and the bell.
      </ConfirmDialog>
    </div>
  );
}
