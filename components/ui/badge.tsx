import type { ReactNode } from "react";

export type TBadgeTone = "neutral" | "blue" | "green" | "red" | "amber" | "violet";

const TONES: Record<TBadgeTone, string> = {
  neutral: "bg-neutral-100 text-neutral-700 dark:bg-neutral-800 dark:text-neutral-300",
  blue: "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300",
  green: "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-300",
  red: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  amber: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-300",
  violet: "bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300",
};

/** A status as a coloured word (the word carries the meaning, not the colour). */
export function Badge({ tone, className, children }: { tone: TBadgeTone; className?: string; children: ReactNode }) {
  return <span className={["inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap", TONES[tone], className].filter(Boolean).join(" ")}>{children}</span>;
}

/** A status word from a fixed set: each status names its label and tone once. */
export function StatusBadge<TStatus extends string>({ status, styles, className }: { status: TStatus; styles: Record<TStatus, { label: string; tone: TBadgeTone }>; className?: string }) {
  const style = styles[status];
  return (
    <Badge tone={style.tone} className={className}>
      {style.label}
    </Badge>
  );
}
