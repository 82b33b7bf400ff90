"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";

type TProfileResult = { name: string | null };

export function ProfileForm({ initialName }: { initialName: string | null }) {
  const fallbackAction = useFormFallbackAction();
  const router = useRouter();
  const [name, setName] = useState(initialName ?? "");
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<{ tone: "success" | "error"; message: string }>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setResult(undefined);
    try {
      const saved = await apiRequest<TProfileResult>("/api/me", { method: "PATCH", body: { name } });
      setName(saved.name ?? "");
      setResult({ tone: "success", message: "Profile saved." });
      // The sidebar shows the name too; re-render the server parts with the new value.
      router.refresh();
    } catch (caught) {
      setResult({ tone: "error", message: errorMessage(caught) });
    } finally {
      setPending(false);
    }
  }

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="max-w-md space-y-4" noValidate>
      <TextField
        label="Name"
        name="name"
        type="text"
        autoComplete="name"
        maxLength={100}
        hint="Shown in the sidebar and to admins. Leave empty to use your email."
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          setResult(undefined);
        }}
      />
      {result ? <Alert tone={result.tone}>{result.message}</Alert> : null}
      <Button type="submit" pending={pending}>
        Save
      </Button>
    </form>
  );
}
