import { useId, type InputHTMLAttributes, type ReactNode } from "react";

type TTextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & {
  label: string;
  /** Help text under the input, linked with aria-describedby. */
  hint?: ReactNode;
  /** Shown next to the label, outside of it, so the accessible name stays exactly `label`. */
  optional?: boolean;
};

export const inputClassName =
  "block h-10 w-full rounded-lg border border-neutral-300 bg-white px-3 text-base text-neutral-900 shadow-xs sm:text-sm " +
  "placeholder:text-neutral-400 focus:border-blue-600 focus:outline-2 focus:outline-offset-0 focus:outline-blue-600/30 " +
  "disabled:cursor-not-allowed disabled:bg-neutral-100 disabled:text-neutral-500 " +
  "dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:placeholder:text-neutral-500 " +
  "dark:focus:border-blue-400 dark:focus:outline-blue-400/30 dark:disabled:bg-neutral-800";

/** A labelled input: the `<label>` is real, so the field is found by its label text. */
export function TextField({ label, hint, optional = false, className, ...rest }: TTextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className={className}>
      <div className="mb-1.5 flex items-baseline justify-between gap-2">
        <label htmlFor={id} className="text-sm font-medium text-neutral-800 dark:text-neutral-200">
          {label}
        </label>
        {optional ? <span className="text-xs text-neutral-500 dark:text-neutral-400">Optional</span> : null}
      </div>
      <input id={id} className={inputClassName} aria-describedby={hint ? hintId : undefined} {...rest} />
      {hint ? (
        <p id={hintId} className="mt-1.5 text-xs text-neutral-500 dark:text-neutral-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
