"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import type { TChannelBindingCode, TChannelBindingView } from "@/lib/wire/channels";

/**
 * Settings → Channels: link a QQ or Feishu account to this xclaw account with a one-time code
 * (ten minutes, works once), see the linked accounts and unlink them.
 */
const KIND_NAMES = { qq: "QQ", feishu: "Feishu" } as const;

export function ChannelBindings({ initialBindings }: { initialBindings: TChannelBindingView[] }) {
  const [bindings, setBindings] = useState(initialBindings);
  const [code, setCode] = useState<TChannelBindingCode>();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const [unbinding, setUnbinding] = useState<TChannelBindingView>();
  const [unbindPending, setUnbindPending] = useState(false);
  const [unbindError, setUnbindError] = useState<string>();

  async function newCode() {
    setPending(true);
    setError(undefined);
    try {
      setCode(await apiRequest<TChannelBindingCode>("/api/me/channel-bindings/code", { method: "POST" }));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  }

  async function refresh() {
    try {
      setBindings((await apiRequest<{ bindings: TChannelBindingView[] }>("/api/me/channel-bindings")).bindings);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }

  async function confirmUnbind() {
    if (!unbinding) return;
    setUnbindPending(true);
    setUnbindError(undefined);
    try {
      await apiRequest(`/api/me/channel-bindings/${encodeURIComponent(unbinding.id)}`, { method: "DELETE" });
      setBindings((rows) => rows.filter((row) => row.id !== unbinding.id));
      setUnbinding(undefined);
    } catch (caught) {
      setUnbindError(errorMessage(caught));
    } finally {
      setUnbindPending(false);
    }
  }

  return (
    <div className="space-y-4">
      <p className="max-w-2xl text-sm text-neutral-600 dark:text-neutral-400">
        Talk to xclaw from QQ or Feishu: get a code, then send <code className="font-mono">/bind &lt;code&gt;</code> to the bot (in a group, mention it first). Messages from a linked
        account run as you, in a conversation of their own per chat. Approvals are always decided here, on the web.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" pending={pending} onClick={() => void newCode()}>
          {code ? "New code" : "Get a code"}
        </Button>
        <Button variant="ghost" onClick={() => void refresh()}>
          Refresh
        </Button>
      </div>
      {code ? (
        <Alert tone="info" role="status">
          Send <code className="font-mono text-base font-semibold select-all">/bind {code.code}</code> to the bot. The code works once, until <DateTime iso={code.expiresAt} />.
        </Alert>
      ) : null}
      {error ? <Alert tone="error">{error}</Alert> : null}
      {bindings.length ? (
        <ul aria-label="Linked chat accounts" className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {bindings.map((binding) => (
            <li key={binding.id} data-testid="channel-binding" className="flex items-center justify-between gap-3 px-4 py-3">
              <div className="min-w-0">
                <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">
                  {KIND_NAMES[binding.kind]} · {binding.accountName}
                </p>
                <p className="mt-0.5 truncate text-xs text-neutral-500 dark:text-neutral-400">
                  <span className="font-mono">{binding.externalUserId}</span> · linked <DateTime iso={binding.createdAt} />
                </p>
              </div>
              <Button size="sm" variant="danger" aria-label={`Unlink ${KIND_NAMES[binding.kind]} ${binding.accountName}`} onClick={() => setUnbinding(binding)}>
                Unlink
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No linked chat accounts.</p>
      )}
      <ConfirmDialog
        open={unbinding !== undefined}
        title="Unlink this chat account?"
        confirmLabel="Unlink"
        destructive
        pending={unbindPending}
        error={unbindError}
        onConfirm={() => void confirmUnbind()}
        onCancel={() => {
          setUnbinding(undefined);
          setUnbindError(undefined);
        }}
      >
        The bot will no longer answer it as you. Its conversations stay here.
      </ConfirmDialog>
    </div>
  );
}
