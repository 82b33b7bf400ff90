"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useSaveForm } from "@/components/forms/use-save-form";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";

type TProfileResult = { name: string | null };

export function ProfileForm({ initialName }: { initialName: string | null }) {
  const fallbackAction = useFormFallbackAction();
  const router = useRouter();
  const [name, setName] = useState(initialName ?? "");
  const { pending, result, onSubmit, clearResult } = useSaveForm(async () => {
    const saved = await apiRequest<TProfileResult>("/api/me", { method: "PATCH", body: { name } });
    setName(saved.name ?? "");
    // The sidebar shows the name too; re-render the server parts with the new value.
    router.refresh();
    return "Profile saved.";
  });

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
          clearResult();
        }}
      />
      <FeedbackAlert feedback={result} />
      <Button type="submit" pending={pending}>
        Save
      </Button>
    </form>
  );
}
