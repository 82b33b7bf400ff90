"use client";

import { useState } from "react";
import { copyText } from "@/components/chat/copy-text";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";

/**
 * A one-time link for someone to choose their password, shown to the admin once: xclaw has no
 * mail server, so the admin passes it on (chat, mail, in person). Only a hash is stored.
 */
export function AccountLinkNotice({ kind, email, path, expiresAt }: { kind: "invite" | "reset"; email: string; path: string; expiresAt: string }) {
  const [copied, setCopied] = useState(false);
  const url = typeof window === "undefined" ? path : `${window.location.origin}${path}`;
  return (
    <div role="status" data-testid="account-link" className="space-y-2 rounded-lg border border-green-200 bg-green-50 px-3 py-3 text-sm text-green-900 dark:border-green-900/70 dark:bg-green-950/50 dark:text-green-100">
      <p>
        {kind === "invite" ? "Invitation" : "Password reset link"} for <strong className="break-all">{email}</strong>. Send it to them yourself; it works once, until{" "}
        <DateTime iso={expiresAt} />, and is not shown again.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="account-link-url" className="min-w-0 flex-1 rounded bg-white/70 px-2 py-1 font-mono text-xs break-all dark:bg-black/30">
          {url}
        </code>
        <Button
          size="sm"
          variant="secondary"
          onClick={async () => {
            setCopied(await copyText(url));
          }}
        >
          {copied ? "Copied" : "Copy link"}
        </Button>
      </div>
    </div>
  );
}
