"use client";

import { useId, useState, type FormEvent } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName, TextField } from "@/components/ui/text-field";
import type { TChannelAccountView, TChannelKindName } from "@/lib/wire/channels";

/**
 * Adds a QQ or Feishu bot, or edits one. Secrets are written, never read back: when editing, an
 * empty secret field keeps the stored one. The base URLs are for a gateway in front of the
 * platform (and tests); empty means the platform's own.
 */
export function ChannelAccountForm({ account, onSaved, onCancel }: { account?: TChannelAccountView; onSaved: (account: TChannelAccountView) => void; onCancel?: () => void }) {
  const id = useId();
  const [kind, setKind] = useState<TChannelKindName>(account?.kind ?? "qq");
  const [name, setName] = useState(account?.name ?? "");
  const [appId, setAppId] = useState(account?.appId ?? "");
  const [appSecret, setAppSecret] = useState("");
  const [verificationToken, setVerificationToken] = useState("");
  const [encryptKey, setEncryptKey] = useState("");
  const [apiBaseUrl, setApiBaseUrl] = useState(account?.apiBaseUrl ?? "");
  const [tokenUrl, setTokenUrl] = useState(account?.tokenUrl ?? "");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const editing = account !== undefined;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    const secrets = { ...(appSecret ? { appSecret } : {}), ...(kind === "feishu" && verificationToken ? { verificationToken } : {}), ...(kind === "feishu" && encryptKey ? { encryptKey } : {}) };
    try {
      const result = editing
        ? await apiRequest<{ channel: TChannelAccountView }>(`/api/admin/channels/${encodeURIComponent(account.id)}`, {
            method: "PATCH",
            body: { name, appId, ...secrets, apiBaseUrl: apiBaseUrl.trim() || null, tokenUrl: tokenUrl.trim() || null },
          })
        : await apiRequest<{ channel: TChannelAccountView }>("/api/admin/channels", {
            method: "POST",
            body: { kind, name, appId, ...secrets, ...(apiBaseUrl.trim() ? { apiBaseUrl } : {}), ...(tokenUrl.trim() ? { tokenUrl } : {}) },
          });
      onSaved(result.channel);
      setAppSecret("");
      setVerificationToken("");
      setEncryptKey("");
      if (!editing) {
        setName("");
        setAppId("");
        setApiBaseUrl("");
        setTokenUrl("");
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  }

  const keep = editing ? "Leave empty to keep the stored one." : undefined;
  return (
    <form onSubmit={onSubmit} className="space-y-3 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" aria-label={editing ? `Edit ${account.name}` : "Add a bot"} noValidate>
      <h3 className="text-sm font-semibold text-neutral-900 dark:text-neutral-100">{editing ? `Edit “${account.name}”` : "Add a bot"}</h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-kind`} className="mb-1.5 block text-sm font-medium text-neutral-800 dark:text-neutral-200">
            Platform
          </label>
          <select id={`${id}-kind`} value={kind} disabled={editing} onChange={(event) => setKind(event.target.value as TChannelKindName)} className={inputClassName}>
            <option value="qq">QQ (official bot, webhook)</option>
            <option value="feishu">Feishu (Lark)</option>
          </select>
        </div>
        <TextField label="Name" name="channelName" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} placeholder="e.g. Team assistant" />
        <TextField label="App ID" name="appId" value={appId} onChange={(event) => setAppId(event.target.value)} maxLength={200} />
        <TextField label="App secret" name="appSecret" type="password" autoComplete="off" value={appSecret} onChange={(event) => setAppSecret(event.target.value)} hint={keep} />
        {kind === "feishu" ? (
          <>
            <TextField label="Verification token" name="verificationToken" type="password" autoComplete="off" value={verificationToken} onChange={(event) => setVerificationToken(event.target.value)} hint={keep ?? "Events and callbacks → Encryption strategy."} />
            <TextField label="Encrypt key" name="encryptKey" type="password" autoComplete="off" value={encryptKey} onChange={(event) => setEncryptKey(event.target.value)} hint={keep ?? "Required: Feishu signs events with it."} />
          </>
        ) : null}
      </div>
      <details className="text-sm">
        <summary className="cursor-pointer text-neutral-700 dark:text-neutral-300">Platform addresses</summary>
        <div className="mt-3 grid gap-3 sm:grid-cols-2">
          <TextField label="API base URL" name="apiBaseUrl" type="url" optional value={apiBaseUrl} onChange={(event) => setApiBaseUrl(event.target.value)} placeholder={kind === "qq" ? "https://api.sgroup.qq.com" : "https://open.feishu.cn"} />
          <TextField label="Token URL" name="tokenUrl" type="url" optional value={tokenUrl} onChange={(event) => setTokenUrl(event.target.value)} placeholder={kind === "qq" ? "https://bots.qq.com/app/getAppAccessToken" : "(API base URL)/open-apis/auth/v3/…"} />
        </div>
      </details>
      {error ? <Alert tone="error">{error}</Alert> : null}
      <div className="flex justify-end gap-2">
        {onCancel ? (
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" pending={pending}>
          {editing ? "Save" : "Add bot"}
        </Button>
      </div>
    </form>
  );
}
