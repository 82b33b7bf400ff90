import type { ReactNode } from "react";

type TAlertTone = "error" | "success" | "info" | "warning";

const TONES: Record<TAlertTone, string> = {
  error: "border-red-200 bg-red-50 text-red-800 dark:border-red-900/70 dark:bg-red-950/50 dark:text-red-200",
  success: "border-green-200 bg-green-50 text-green-800 dark:border-green-900/70 dark:bg-green-950/50 dark:text-green-200",
  info: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-900/70 dark:bg-blue-950/50 dark:text-blue-200",
  warning: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/70 dark:bg-amber-950/50 dark:text-amber-200",
};

/**
 * A message box. Errors use role="alert" (announced at once); success and info use role="status"
 * (announced politely). Pass `role` to override.
 */
export function Alert({
  tone = "error",
  children,
  className,
  role,
}: {
  tone?: TAlertTone;
  children: ReactNode;
  className?: string;
  role?: "alert" | "status" | "note";
}) {
  return (
    <div
      role={role ?? (tone === "error" ? "alert" : "status")}
      className={["rounded-lg border px-3 py-2 text-sm", TONES[tone], className].filter(Boolean).join(" ")}
    >
      {children}
    </div>
  );
}

/** What the last action said (use-action.ts): its confirmation or its error, or nothing yet. */
export function FeedbackAlert({ feedback, className }: { feedback: { tone: "success" | "error"; message: string } | undefined; className?: string }) {
  return feedback ? (
    <Alert tone={feedback.tone} className={className}>
      {feedback.message}
    </Alert>
  ) : null;
}
