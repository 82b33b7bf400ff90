"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { hardNavigate } from "@/components/hard-navigate";
import { apiRequest, errorMessage } from "@/components/api-request";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

export function SignOutEverywhere() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();

  async function onClick() {
    setPending(true);
    setError(undefined);
    try {
      await apiRequest("/api/me/sign-out-everywhere", { method: "POST" });
    } catch (caught) {
      setError(errorMessage(caught));
      setPending(false);
      return;
    }
    await signOut({ callbackUrl: "/sign-in" }).catch(() => hardNavigate("/sign-in"));
  }

  return (
    <div className="space-y-4">
      {error ? <Alert tone="error">{error}</Alert> : null}
      <Button variant="danger" pending={pending} onClick={onClick}>
        Sign out everywhere
      </Button>
    </div>
  );
}
