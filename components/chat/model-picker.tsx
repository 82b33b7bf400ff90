"use client";

import { useId, useState } from "react";
import { apiRequest, errorMessage } from "@/components/api-request";
import type { TChatSession, TModelChoice } from "./types";

/**
 * The chat's model: one of the configured providers' models (GET /api/models), chosen per chat and
 * stored on the session; the run core puts it first in the provider chain. A native select, so it
 * works the same with a keyboard, a screen reader and a phone.
 */
export function ModelPicker({
  sessionId,
  choices,
  value,
  disabled,
  onChanged,
}: {
  sessionId: string;
  choices: TModelChoice[];
  value: string | null;
  disabled: boolean;
  onChanged: (session: TChatSession["model"]) => void;
}) {
  const id = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  if (choices.length < 2) return null;
  const fallback = choices.find((choice) => choice.isDefault) ?? choices[0]!;
  const current = choices.some((choice) => choice.id === value) ? value! : fallback.id;
  const providers = [...new Set(choices.map((choice) => choice.provider))];

  async function choose(next: string) {
    setPending(true);
    setError(undefined);
    try {
      const model = next === fallback.id ? null : next;
      await apiRequest(`/api/sessions/${encodeURIComponent(sessionId)}`, { method: "PATCH", body: { model } });
      onChanged(model);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <span className="inline-flex items-center gap-1.5">
      <label htmlFor={id} className="sr-only">
        Model for this chat
      </label>
      <select
        id={id}
        data-testid="model-picker"
        value={current}
        disabled={disabled || pending}
        onChange={(event) => void choose(event.target.value)}
        aria-describedby={error ? `${id}-error` : undefined}
        className="h-7 max-w-[14rem] truncate rounded-md border border-neutral-300 bg-white px-1.5 font-mono text-xs text-neutral-700 focus-visible:outline-2 focus-visible:outline-blue-600 disabled:opacity-60 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-300"
      >
        {providers.map((provider) => (
          <optgroup key={provider} label={provider}>
            {choices
              .filter((choice) => choice.provider === provider)
              .map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.model}
                  {choice.isDefault ? " (default)" : ""}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
      {error ? (
        <span id={`${id}-error`} role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </span>
  );
}
