import type { ComponentProps } from "react";
import { SpinnerIcon } from "./icons";

type TButtonVariant = "primary" | "secondary" | "danger" | "ghost";
type TButtonSize = "md" | "sm";

const BASE =
  "inline-flex items-center justify-center gap-2 rounded-lg font-medium whitespace-nowrap transition-colors " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:focus-visible:outline-blue-400 " +
  "disabled:cursor-not-allowed disabled:opacity-60";

const VARIANTS: Record<TButtonVariant, string> = {
  primary:
    "bg-neutral-900 text-white hover:bg-neutral-700 disabled:hover:bg-neutral-900 " +
    "dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-white dark:disabled:hover:bg-neutral-100",
  secondary:
    "border border-neutral-300 bg-white text-neutral-900 hover:bg-neutral-100 disabled:hover:bg-white " +
    "dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800 dark:disabled:hover:bg-neutral-900",
  danger:
    "border border-red-300 bg-white text-red-700 hover:bg-red-50 disabled:hover:bg-white " +
    "dark:border-red-900 dark:bg-neutral-900 dark:text-red-400 dark:hover:bg-red-950 dark:disabled:hover:bg-neutral-900",
  ghost:
    "text-neutral-700 hover:bg-neutral-100 hover:text-neutral-900 disabled:hover:bg-transparent " +
    "dark:text-neutral-300 dark:hover:bg-neutral-800 dark:hover:text-white",
};

const SIZES: Record<TButtonSize, string> = {
  md: "h-10 px-4 text-sm",
  sm: "h-8 px-3 text-xs",
};

export function buttonClassName(options: { variant?: TButtonVariant; size?: TButtonSize; className?: string } = {}) {
  return [BASE, VARIANTS[options.variant ?? "primary"], SIZES[options.size ?? "md"], options.className].filter(Boolean).join(" ");
}

type TButtonProps = ComponentProps<"button"> & {
  variant?: TButtonVariant;
  size?: TButtonSize;
  /** Shows a spinner and disables the button while a request is in flight. */
  pending?: boolean;
};

export function Button({ variant, size, pending = false, className, disabled, children, type = "button", ...rest }: TButtonProps) {
  return (
    <button
      type={type}
      className={buttonClassName({ variant, size, className })}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      {...rest}
    >
      {pending ? <SpinnerIcon /> : null}
      {children}
    </button>
  );
}

/**
 * A button that shows only an icon: its label is its accessible name and its tooltip. The look
 * belongs to where it stands (a message's actions, the lightbox, a chat row), so it is passed in.
 */
export function IconButton({ label, className, type = "button", ...rest }: Omit<ComponentProps<"button">, "aria-label" | "title"> & { label: string; className: string }) {
  return <button type={type} aria-label={label} title={label} className={className} {...rest} />;
}
