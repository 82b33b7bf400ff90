"use client";

import { useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import type { TChannelAccountView } from "@/lib/wire/channels";
import { ChannelAccountForm } from "./channel-account-form";

/**
 * Admin → Channels: the QQ and Feishu bots. Each row shows the callback URL to paste on the
 * platform, whether the bot is on, its last event, reply and error, and the callbacks it refused;
 * "Test" asks the platform's token endpoint whether the stored credentials work.
 */
const KIND_NAMES = { qq: "QQ", feishu: "Feishu" } as const;

export function ChannelAccounts({ initialAccounts }: { initialAccounts: TChannelAccountView[] }) {
  const [accounts, setAccounts] = useState(initialAccounts);
  const [editing, setEditing] = useState<string>();
  const [pendingId, setPendingId] = useState<string>();
  const [notice, setNotice] = useState<{ tone: "success" | "error"; text: string }>();
  const [deleting, setDeleting] = useState<TChannelAccountView>();
  const [deletePending, setDeletePending] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();

  const replace = (account: TChannelAccountView) => setAccounts((rows) => rows.map((row) => (row.id === account.id ? { ...account, bindings: row.bindings } : row)));

  async function run(account: TChannelAccountView, action: () => Promise<void>) {
    setPendingId(account.id);
    setNotice(undefined);
    try {
      await action();
    } catch (caught) {
      setNotice({ tone: "error", text: errorMessage(caught) });
    } finally {
      setPendingId(undefined);
    }
  }

  const test = (account: TChannelAccountView) =>
    run(account, async () => {
      const result = await apiRequest<{ ok: boolean; error: string | null }>(`/api/admin/channels/${encodeURIComponent(account.id)}/test`, { method: "POST" });
      setNotice(result.ok ? { tone: "success", text: `“${account.name}”: the platform accepted the app id and secret.` } : { tone: "error", text: `“${account.name}”: ${result.error}` });
    });

  const setEnabled = (account: TChannelAccountView, enabled: boolean) =>
    run(account, async () => {
      replace((await apiRequest<{ channel: TChannelAccountView }>(`/api/admin/channels/${encodeURIComponent(account.id)}`, { method: "PATCH", body: { enabled } })).channel);
    });

  async function confirmDelete() {
    if (!deleting) return;
    setDeletePending(true);
    setDeleteError(undefined);
    try {
      await apiRequest(`/api/admin/channels/${encodeURIComponent(deleting.id)}`, { method: "DELETE" });
      setAccounts((rows) => rows.filter((row) => row.id !== deleting.id));
      setNotice({ tone: "success", text: `“${deleting.name}” was deleted.` });
      setDeleting(undefined);
    } catch (caught) {
      setDeleteError(errorMessage(caught));
    } finally {
      setDeletePending(false);
    }
  }

  return (
    <div className="space-y-6">
      {accounts.length ? (
        <ul aria-label="Bots" className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {accounts.map((account) => (
            <li key={account.id} data-testid="channel-account" className="px-4 py-3">
              {editing === account.id ? (
                <ChannelAccountForm
                  account={account}
                  onSaved={(saved) => {
                    replace(saved);
                    setEditing(undefined);
                    setNotice({ tone: "success", text: `“${saved.name}” was saved.` });
                  }}
                  onCancel={() => setEditing(undefined)}
                />
              ) : (
                <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                  <div className="min-w-0 text-xs text-neutral-500 dark:text-neutral-400">
                    <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">
                      {account.name}
                      <span className="ml-2 text-xs font-normal text-neutral-500 dark:text-neutral-400">
                        {KIND_NAMES[account.kind]} · app {account.appId} · {account.bindings} bound
                      </span>
                      {account.enabled ? null : <span className="ml-2 rounded bg-neutral-200 px-1.5 py-0.5 text-xs font-normal text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300">off</span>}
                    </p>
                    <p className="mt-1">
                      Callback URL: <code className="font-mono break-all text-neutral-800 dark:text-neutral-200">{account.callbackUrl}</code>
                    </p>
                    <p className="mt-0.5">
                      Last event <DateTime iso={account.lastEventAt} fallback="never" /> · last reply <DateTime iso={account.lastReplyAt} fallback="never" />
                      {account.rejectedCount ? (
                        <>
                          {" "}
                          · {account.rejectedCount} refused callback{account.rejectedCount === 1 ? "" : "s"} (last <DateTime iso={account.lastRejectedAt} />)
                        </>
                      ) : null}
                    </p>
                    {account.lastError ? (
                      <p className="mt-0.5 break-words text-red-700 dark:text-red-300">
                        Last error (<DateTime iso={account.lastErrorAt} />): {account.lastError}
                      </p>
                    ) : null}
                  </div>
                  <div className="flex shrink-0 flex-wrap gap-2">
                    <Button size="sm" variant="secondary" pending={pendingId === account.id} aria-label={`Test ${account.name}`} onClick={() => void test(account)}>
                      Test
                    </Button>
                    <Button size="sm" variant="ghost" aria-label={`Edit ${account.name}`} onClick={() => setEditing(account.id)}>
                      Edit
                    </Button>
                    <Button size="sm" variant="ghost" disabled={pendingId === account.id} aria-label={`${account.enabled ? "Switch off" : "Switch on"} ${account.name}`} onClick={() => void setEnabled(account, !account.enabled)}>
                      {account.enabled ? "Switch off" : "Switch on"}
                    </Button>
                    <Button size="sm" variant="danger" aria-label={`Delete ${account.name}`} onClick={() => setDeleting(account)}>
                      Delete
                    </Button>
                  </div>
                </div>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No bots yet.</p>
      )}

      {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}

      <ChannelAccountForm
        onSaved={(created) => {
          setAccounts((rows) => [...rows, created]);
          setNotice({ tone: "success", text: `“${created.name}” was added. Paste its callback URL on the platform, then press Test.` });
        }}
      />

      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete bot"
        destructive
        pending={deletePending}
        error={deleteError}
        onConfirm={() => void confirmDelete()}
        onCancel={() => {
          setDeleting(undefined);
          setDeleteError(undefined);
        }}
      >
        Its callbacks are refused from now on and everyone bound to it is unbound. Their conversations stay in xclaw.
      </ConfirmDialog>
    </div>
  );
}
