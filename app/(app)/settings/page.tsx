import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import Link from "next/link";
import { parseTheme, THEME_COOKIE } from "@/components/app-shell/theme";
import { ApiTokens } from "@/components/settings/api-tokens";
import { ChannelBindings } from "@/components/settings/channel-bindings";
import { ChatPreferences } from "@/components/settings/chat-preferences";
import { EmailForm } from "@/components/settings/email-form";
import { InstructionsForm } from "@/components/settings/instructions-form";
import { NotificationChannels } from "@/components/settings/notification-channels";
import { WebhookEndpoints } from "@/components/settings/webhook-endpoints";
import { PasswordForm } from "@/components/settings/password-form";
import { ProfileForm } from "@/components/settings/profile-form";
import { SignOutEverywhere } from "@/components/settings/sign-out-everywhere";
import { PageHeader, Section } from "@/components/ui/card";
import { listApiTokens } from "@/lib/auth/api-tokens";
import { requirePageUser } from "@/lib/auth/page-session";
import { listBindings } from "@/lib/channels/bindings";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { listEndpoints, toEndpointView } from "@/lib/chronos/webhook-endpoints";
import { publicOrigin } from "@/lib/config/environment";
import { listChannels } from "@/lib/notifications/channels";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const user = await requirePageUser();
  const tokens = await listApiTokens({ userId: user.id });
  const [channels, endpoints, bindings] = await Promise.all([listChannels({ userId: user.id }), listEndpoints({ userId: user.id }), listBindings({ userId: user.id })]);
  const origin = publicOrigin() ?? originFromHeaders(await headers());
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-10">
      <PageHeader title="Settings" description="Your profile, how chats answer and look, your password, sessions, API tokens, notifications and webhooks." />
      <div className="space-y-6">
        <Section id="profile" title="Profile">
          <ProfileForm initialName={user.name} />
        </Section>

        <Section id="chat" title="Chat" description="Instructions for every chat, and how the chat looks and tells you things.">
          <div className="space-y-8">
            <InstructionsForm initial={user.instructions} />
            <ChatPreferences theme={theme} />
          </div>
        </Section>

        <Section id="email" title="Email" description="The address you sign in with.">
          <EmailForm email={user.email} />
        </Section>

        <Section id="password" title="Password" description="You will be signed out on every device, including this one, and your API tokens will stop working.">
          <PasswordForm passwordMinLength={getBehaviourConfig().auth.passwordMinLength} />
        </Section>

        <Section
          id="sessions"
          title="Sessions"
          description="Signed in on a device you no longer use? End every session and every API token at once; you will need to sign in again here too."
        >
          <SignOutEverywhere />
        </Section>

        <Section id="memory" title="Memory" description="What xclaw remembers about you across chats, and whether it learns from your conversations.">
          <Link href="/settings/memory" className="text-sm font-medium underline underline-offset-2">
            Manage your memories
          </Link>
        </Section>

        <Section
          id="api-tokens"
          title="API tokens"
          description="Tokens let scripts and other programs call the xclaw API as you. Treat them like passwords."
        >
          <ApiTokens
            initialTokens={tokens.map((token) => ({
              id: token.id,
              name: token.name,
              prefix: token.prefix,
              createdAt: token.createdAt.toISOString(),
              lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
              active: token.active,
            }))}
          />
        </Section>

        <Section id="notifications" title="Notifications" description="Where scheduled jobs and alert triage tell you about problems, besides the bell.">
          <NotificationChannels initialChannels={channels} />
        </Section>

        <Section id="webhooks" title="Webhooks" description="Endpoints for monitoring alerts (Prometheus Alertmanager, Grafana, any JSON).">
          <WebhookEndpoints initialEndpoints={endpoints.map((endpoint) => toEndpointView(endpoint, origin))} />
        </Section>

        <Section id="channels" title="Channels" description="Your QQ and Feishu accounts linked to xclaw.">
          <ChannelBindings initialBindings={bindings} />
        </Section>
      </div>
    </div>
  );
}

/** The origin this page was requested on, for the endpoint URLs when NEXTAUTH_URL is not set. */
function originFromHeaders(requestHeaders: Headers): string {
  const host = requestHeaders.get("host") ?? "localhost:3000";
  return `${host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https"}://${host}`;
}
