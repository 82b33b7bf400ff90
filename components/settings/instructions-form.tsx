"use client";

import { useId, useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useFormFallbackAction } from "@/components/forms/form-fallback";
import { useSaveForm } from "@/components/forms/use-save-form";
import { FeedbackAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { inputClassName } from "@/components/ui/text-field";

const MAX_LENGTH = 4_000;

/** Custom instructions: added to the system prompt of every chat of this person. */
export function InstructionsForm({ initial }: { initial: string | null }) {
  const id = useId();
  const fallbackAction = useFormFallbackAction();
  const [text, setText] = useState(initial ?? "");
  const { pending, result, onSubmit, clearResult } = useSaveForm(async () => {
    const saved = await apiRequest<{ instructions: string | null }>("/api/me", { method: "PATCH", body: { instructions: text } });
    setText(saved.instructions ?? "");
    return saved.instructions ? "Saved. New messages in every chat follow them." : "Cleared.";
  });

  return (
    <form method="post" action={fallbackAction} onSubmit={onSubmit} className="space-y-3" noValidate>
      <label htmlFor={id} className="text-sm font-medium text-neutral-800 dark:text-neutral-200">
        Custom instructions
      </label>
      <textarea
        id={id}
        name="instructions"
        value={text}
        maxLength={MAX_LENGTH}
        rows={5}
        onChange={(event) => {
          setText(event.target.value);
          clearResult();
        }}
        placeholder="For example: I am a data engineer. Answer briefly, in British English, and show SQL for PostgreSQL."
        aria-describedby={`${id}-hint`}
        className={`${inputClassName} h-auto min-h-28 py-2`}
      />
      <p id={`${id}-hint`} className="text-xs text-neutral-500 dark:text-neutral-400">
        What xclaw should know about you or how it should answer, in every chat. {text.length.toLocaleString("en-US")} / {MAX_LENGTH.toLocaleString("en-US")} characters.
      </p>
      <FeedbackAlert feedback={result} />
      <Button type="submit" pending={pending}>
        Save instructions
      </Button>
    </form>
  );
}
