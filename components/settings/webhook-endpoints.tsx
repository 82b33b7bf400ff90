"use client";

import { useState } from "react";
import { apiRequest } from "@/components/api-request";
import { useAction } from "@/components/forms/use-action";
import { useConfirmation } from "@/components/forms/use-confirmation";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DateTime } from "@/components/ui/date-time";
import { TextField } from "@/components/ui/text-field";
import type { TWebhookEndpointView } from "@/lib/wire/chronos";
import { SecretOnce } from "./secret-once";

/**
 * Settings → Webhooks: endpoints where monitoring (Prometheus Alertmanager, Grafana, anything that
 * posts JSON) sends alerts for the agent to triage. The secret is shown once, at creation or
 * rotation, together with ready-to-paste Alertmanager and Grafana configuration.
 */
const PLACEHOLDER = "<your endpoint secret>";

export function alertmanagerSnippet(url: string, secret: string): string {
  return `# alertmanager.yml
receivers:
  - name: xclaw
    webhook_configs:
      - url: "${url}"
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: "${secret}"
route:
  receiver: xclaw`;
}

export function grafanaSnippet(url: string, secret: string): string {
  return `# Grafana: provisioning/alerting/xclaw.yaml (or Alerting → Contact points → Webhook,
# URL as below, Optional settings → Authorization header: scheme Bearer, credentials the secret)
apiVersion: 1
contactPoints:
  - orgId: 1
    name: xclaw
    receivers:
      - uid: xclaw
        type: webhook
        settings:
          url: "${url}"
          httpMethod: POST
          authorization_scheme: Bearer
          authorization_credentials: "${secret}"`;
}

export function curlSnippet(url: string, secret: string): string {
  return `curl -X POST '${url}' \\
  -H 'Authorization: Bearer ${secret}' \\
  -H 'Content-Type: application/json' \\
  -d '{"service":"database","error":"connection timeout"}'`;
}

function Snippets({ endpoint, secret }: { endpoint: TWebhookEndpointView; secret?: string }) {
  const value = secret ?? PLACEHOLDER;
  const blocks = [
    { title: "Prometheus Alertmanager", text: alertmanagerSnippet(endpoint.url, value) },
    { title: "Grafana alerting", text: grafanaSnippet(endpoint.url, value) },
    { title: "Try it with curl", text: curlSnippet(endpoint.url, value) },
  ];
  return (
    <div className="mt-3 space-y-3">
      {blocks.map((block) => (
        <div key={block.title}>
          <p className="mb-1 text-xs font-semibold text-neutral-700 dark:text-neutral-300">{block.title}</p>
          <pre className="overflow-x-auto rounded-md bg-neutral-100 p-3 font-mono text-xs text-neutral-800 dark:bg-neutral-950 dark:text-neutral-200">{block.text}</pre>
        </div>
      ))}
      <p className="text-xs text-neutral-600 dark:text-neutral-400">
        Signed instead of a bearer token (Grafana&apos;s HMAC signature): use the same URL, the secret as the HMAC secret, and set the timestamp header to{" "}
        <code className="font-mono">X-Grafana-Alerting-Timestamp</code>. The signature is hex HMAC-SHA256 of <code className="font-mono">timestamp + &quot;:&quot; + body</code>; requests more than
        five minutes old are refused.
      </p>
    </div>
  );
}

export function WebhookEndpoints({ initialEndpoints }: { initialEndpoints: TWebhookEndpointView[] }) {
  const [endpoints, setEndpoints] = useState(initialEndpoints);
  const [name, setName] = useState("");
  const [notice, setNotice] = useState<string>();
  const [shown, setShown] = useState<{ endpoint: TWebhookEndpointView; secret: string }>();
  const [setupOpen, setSetupOpen] = useState<string>();
  const { busy: creating, error, submit } = useAction();
  const confirmation = useConfirmation<{ action: "rotate" | "delete"; endpoint: TWebhookEndpointView }>();
  const confirm = confirmation.subject;

  const onCreate = submit("create", async () => {
    setNotice(undefined);
    const created = await apiRequest<{ secret: string; endpoint: TWebhookEndpointView }>("/api/webhook/endpoints", { method: "POST", body: { name } });
    setEndpoints((rows) => [...rows, created.endpoint]);
    setShown({ endpoint: created.endpoint, secret: created.secret });
    setName("");
  });

  const onConfirm = confirmation.confirm(async ({ action, endpoint }) => {
    if (action === "rotate") {
      const rotated = await apiRequest<{ secret: string; endpoint: TWebhookEndpointView }>(`/api/webhook/endpoints/${encodeURIComponent(endpoint.id)}/rotate`, { method: "POST" });
      setEndpoints((rows) => rows.map((row) => (row.id === endpoint.id ? rotated.endpoint : row)));
      setShown({ endpoint: rotated.endpoint, secret: rotated.secret });
    } else {
      await apiRequest(`/api/webhook/endpoints/${encodeURIComponent(endpoint.id)}`, { method: "DELETE" });
      setEndpoints((rows) => rows.filter((row) => row.id !== endpoint.id));
      if (shown?.endpoint.id === endpoint.id) setShown(undefined);
      setNotice(`"${endpoint.name}" was deleted; its secret no longer works.`);
    }
  });

  return (
    <div className="space-y-6">
      <p className="max-w-2xl text-sm text-neutral-600 dark:text-neutral-400">
        Monitoring systems post alerts to an endpoint; the agent triages each new firing alert with read-only tools and notifies you when someone should act. Repeated deliveries of the same
        alert are ignored, resolved alerts are recorded without a triage. Alert text is treated as data, never as instructions.
      </p>

      {endpoints.length ? (
        <ul aria-label="Your webhook endpoints" className="divide-y divide-neutral-200 rounded-lg border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {endpoints.map((endpoint) => (
            <li key={endpoint.id} className="px-4 py-3">
              <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                <div className="min-w-0">
                  <p className="text-sm font-medium text-neutral-900 dark:text-neutral-100">{endpoint.name}</p>
                  <p className="mt-0.5 font-mono text-xs break-all text-neutral-500 dark:text-neutral-400">{endpoint.url}</p>
                  <p className="mt-0.5 text-xs text-neutral-500 dark:text-neutral-400">
                    Secret <code className="font-mono">{endpoint.prefix}…</code> · {endpoint.lastUsedAt ? <>last alert <DateTime iso={endpoint.lastUsedAt} /></> : "no alert yet"}
                  </p>
                </div>
                <div className="flex shrink-0 flex-wrap gap-2">
                  <Button size="sm" variant="ghost" aria-expanded={setupOpen === endpoint.id} aria-label={`Setup for ${endpoint.name}`} onClick={() => setSetupOpen(setupOpen === endpoint.id ? undefined : endpoint.id)}>
                    Setup
                  </Button>
                  <Button size="sm" variant="secondary" aria-label={`Rotate the secret of ${endpoint.name}`} onClick={() => confirmation.ask({ action: "rotate", endpoint })}>
                    Rotate secret
                  </Button>
                  <Button size="sm" variant="danger" aria-label={`Delete ${endpoint.name}`} onClick={() => confirmation.ask({ action: "delete", endpoint })}>
                    Delete
                  </Button>
                </div>
              </div>
              {setupOpen === endpoint.id ? <Snippets endpoint={endpoint} /> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No endpoints yet.</p>
      )}

      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {shown ? (
        <SecretOnce title={`Secret of "${shown.endpoint.name}"`} secret={shown.secret} onDismiss={() => setShown(undefined)}>
          <Snippets endpoint={shown.endpoint} secret={shown.secret} />
        </SecretOnce>
      ) : null}

      <form onSubmit={onCreate} className="flex max-w-xl flex-col gap-3 sm:flex-row sm:items-end" noValidate aria-label="Create a webhook endpoint">
        <TextField label="Endpoint name" name="endpointName" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} placeholder="e.g. Prometheus" className="flex-1" />
        <Button type="submit" pending={creating}>
          Create endpoint
        </Button>
      </form>
      {error ? <Alert tone="error">{error}</Alert> : null}

      <ConfirmDialog
        {...confirmation.dialog}
        title={confirm?.action === "rotate" ? `Rotate the secret of "${confirm.endpoint.name}"?` : `Delete "${confirm?.endpoint.name ?? ""}"?`}
        confirmLabel={confirm?.action === "rotate" ? "Rotate secret" : "Delete endpoint"}
        destructive
        onConfirm={onConfirm}
      >
        {confirm?.action === "rotate" ? "The current secret stops working at once; update your monitoring with the new one." : "Alerts sent to it are refused from now on."}
      </ConfirmDialog>
    </div>
  );
}
