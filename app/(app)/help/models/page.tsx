import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageUser } from "@/lib/auth/page-session";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { providerStatus } from "@/lib/providers/registry";

export const metadata: Metadata = { title: "Setting up a model" };

const CODE = "rounded bg-neutral-100 px-1 py-0.5 font-mono text-xs dark:bg-neutral-800";

/**
 * The docs the "no model configured" notice links to: what this server has, and how an
 * administrator connects a provider (the same settings as README "Model providers").
 */
export default async function ModelHelpPage() {
  const user = await requirePageUser();
  const status = providerStatus();
  const config = getBehaviourConfig();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Setting up a model" description="xclaw answers with a model provider the administrator connects: OpenAI, Anthropic, or any OpenAI-compatible server." />
      <div className="space-y-6">
        <Section id="status" title="On this server">
          <ul className="space-y-1 text-sm">
            {status.map((provider) => (
              <li key={provider.name} data-testid="provider-status">
                <span className="font-mono">{provider.name}</span> ({provider.model}): {provider.configured ? "configured" : "not configured"}
              </li>
            ))}
          </ul>
          <p className="mt-3 text-sm text-neutral-600 dark:text-neutral-400">
            Tried in this order: {config.providers.chain.join(", ")}; the next one takes over when one fails.
          </p>
        </Section>
        <Section id="setup" title={user.role === "ADMIN" ? "Connect a provider" : "Ask your administrator"}>
          <div className="space-y-3 text-sm text-neutral-700 dark:text-neutral-300">
            <p>Set one of these in the server&apos;s environment (the <code className={CODE}>.env</code> file, or your service manager), then restart xclaw:</p>
            <ul className="list-disc space-y-1 pl-5">
              <li>
                <code className={CODE}>OPENAI_API_KEY</code> for OpenAI (model: <code className={CODE}>OPENAI_MODEL</code> or <code className={CODE}>providers.openai.model</code>).
              </li>
              <li>
                <code className={CODE}>OPENAI_BASE_URL</code> for an OpenAI-compatible server such as Ollama (<code className={CODE}>http://127.0.0.1:11434/v1</code>), vLLM or LM Studio; no key is needed for local servers.
              </li>
              <li>
                <code className={CODE}>ANTHROPIC_API_KEY</code> for Anthropic (model: <code className={CODE}>ANTHROPIC_MODEL</code>).
              </li>
            </ul>
            <p>
              More models people may pick per chat go in <code className={CODE}>xclaw.yaml</code> under <code className={CODE}>providers.openai.models</code> or{" "}
              <code className={CODE}>providers.anthropic.models</code>. The start log names the providers and models in use.
            </p>
          </div>
        </Section>
        <Link href="/" className="inline-block text-sm font-medium text-blue-700 underline-offset-4 hover:underline dark:text-blue-400">
          Back to chats
        </Link>
      </div>
    </div>
  );
}
