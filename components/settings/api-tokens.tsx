"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useAction } from "@/components/forms/use-action";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { TextField } from "@/components/ui/text-field";
import { SecretOnce } from "./secret-once";

/** `active` is false for a token that stopped working when its owner's sessions were ended. */
export type TApiTokenRow = { id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null; active: boolean };
type TCreatedToken = TApiTokenRow & { token: string };

export function ApiTokens({ initialTokens }: { initialTokens: TApiTokenRow[] }) {
  const fallbackAction = useFormFallbackAction();
  const [tokens, setTokens] = useState(initialTokens);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<TCreatedToken>();
  const { pending, busy, feedback, run, submit } = useAction();

  const onCreate = submit("create", async () => {
    const token = await apiRequest<TCreatedToken>("/api/tokens", { method: "POST", body: { name } });
    setCreated(token);
    setTokens((rows) => [{ id: token.id, name: token.name, prefix: token.prefix, createdAt: token.createdAt, lastUsedAt: token.lastUsedAt, active: true }, ...rows]);
    setName("");
  });

  const onRevoke = (row: TApiTokenRow) =>
    run(row.id, async () => {
      await apiRequest(`/api/tokens/${encodeURIComponent(row.id)}`, { method: "DELETE" });
      setTokens((rows) => rows.filter((token) => token.id !== row.id));
      if (created?.id === row.id) setCreated(undefined);
      // The row is gone, so the message need not repeat the name.
      return "Token revoked. Programs using it can no longer call the API.";
    });

  return (
    <div className="space-y-6">
      <p className="max-w-2xl text-sm text-neutral-600 dark:text-neutral-400">
        A token works only as long as your sessions do: changing your password, signing out everywhere, or an
        administrator disabling your account ends every token for good (enabling the account again does not bring them
        back). Create a new one afterwards.
      </p>
      <form method="post" action={fallbackAction} onSubmit={onCreate} className="flex max-w-xl flex-col gap-3 sm:flex-row sm:items-end" noValidate>
        <TextField
          label="Token name"
          name="tokenName"
          type="text"
          autoComplete="off"
          placeholder="e.g. CI pipeline"
          maxLength={100}
          className="flex-1"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <Button type="submit" pending={pending === "create"}>
          Create token
        </Button>
      </form>

      <FeedbackAlert feedback={feedback} />
      {created ? (
        <SecretOnce
          title="New token created"
          secret={created.token}
          hint={
            <>
              Send it as <code className="font-mono">Authorization: Bearer &lt;token&gt;</code>.
            </>
          }
          onDismiss={() => setCreated(undefined)}
        />
      ) : null}

      {tokens.length === 0 ? (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No tokens yet.</p>
      ) : (
        <ul aria-label="Your API tokens" className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {tokens.map((token) => (
            <li key={token.id} className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium text-neutral-900 dark:text-neutral-100">
                  {token.name}
                  {token.active ? null : (
                    <span className="ml-2 rounded bg-neutral-200 px-1.5 py-0.5 text-xs font-normal text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300">
                      stopped working
                    </span>
                  )}
                </p>
                <p className="mt-0.5 text-xs text-neutral-500 dark:text-neutral-400">
                  <code className="font-mono">{token.prefix}…</code>
                  <span aria-hidden="true"> · </span>
                  <span className="sr-only">, </span>
                  created <DateTime iso={token.createdAt} />
                  <span aria-hidden="true"> · </span>
                  <span className="sr-only">, </span>
                  {token.lastUsedAt ? (
                    <>
                      last used <DateTime iso={token.lastUsedAt} />
                    </>
                  ) : (
                    "never used"
                  )}
                </p>
              </div>
              <Button
                variant="danger"
                size="sm"
                className="self-start sm:self-auto"
                aria-label={`Revoke ${token.name}`}
                pending={pending === token.id}
                disabled={busy}
                onClick={() => onRevoke(token)}
              >
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
