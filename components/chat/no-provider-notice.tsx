import Link from "next/link";
import { Alert } from "@/components/ui/alert";

/**
 * No model provider is configured: said once, where it matters (above the chat's message box, whose
 * Send stays off, and on the welcome page), with what to do and a link to the setup help.
 */
export function NoProviderNotice({ isAdmin }: { isAdmin: boolean }) {
  return (
    <Alert tone="warning" role="note" className="mb-2">
      <span data-testid="no-provider">
        No model is configured, so xclaw cannot answer yet.{" "}
        {isAdmin ? "Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL in the server's environment and restart xclaw." : "Ask an administrator to configure a model provider."}{" "}
        <Link href="/help/models" className="font-medium underline underline-offset-2">
          How to set up a model
        </Link>
      </span>
    </Alert>
  );
}
