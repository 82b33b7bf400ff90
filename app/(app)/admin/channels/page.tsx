import type { Metadata } from "next";
import { headers } from "next/headers";
import { ChannelAccounts } from "@/components/admin/channel-accounts";
import { PageHeader, Section } from "@/components/ui/card";
import { requirePageAdmin } from "@/lib/auth/page-session";
import { listChannelAccounts, toAccountView } from "@/lib/channels/channel-accounts";
import { publicOrigin } from "@/lib/config/environment";

export const metadata: Metadata = { title: "Channels · Admin" };

export default async function AdminChannelsPage() {
  await requirePageAdmin();
  const requestHeaders = await headers();
  const host = requestHeaders.get("host") ?? "localhost:3000";
  // The callback URLs name this server as the platforms reach it: NEXTAUTH_URL, else the address this page was opened on.
  const origin = publicOrigin() ?? `${host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https"}://${host}`;
  const accounts = (await listChannelAccounts()).map((account) => toAccountView(account, origin));
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Channels" description="QQ and Feishu bots that people talk to xclaw through. People link their chat accounts in Settings → Channels; only linked people are answered." />
      <Section
        id="bots"
        title="Bots"
        description="Create the bot on the platform, add it here, and paste its callback URL in the platform's event settings. Secrets are stored encrypted and never shown again. Approvals are never decided in a chat: replies link to the web."
      >
        <ChannelAccounts initialAccounts={accounts} />
      </Section>
    </div>
  );
}
