import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { SEALED_COLUMNS } from "@/lib/app/sealed-columns";
import { decodeSessionToken, encodeSessionToken } from "@/lib/auth/session-token";
import { resetEnvironment } from "@/lib/config/environment";
import { openSecret, sealSecret } from "@/lib/config/secret-box";
import { databaseUrl, db } from "@/lib/db/client";
import { resealStoredSecrets } from "@/lib/operations/rotate-secret";
import { decryptSecrets } from "@/lib/plugins/secret-config";
import { createUser } from "../support/http";

/**
 * Rotating NEXTAUTH_SECRET without downtime: with the new secret and the old one in
 * NEXTAUTH_SECRET_PREVIOUS, cookies and stored secrets sealed under the old one still work; the
 * rotation re-seals every stored secret (plugin settings in their earlier format too) so that the
 * old secret can go; a value neither secret opens is reported and left as it is.
 */
const OLD = "rotation-test-old-secret-0123456789abcdefghij";
const NEW = "rotation-test-new-secret-0123456789abcdefghij";
const saved = { secret: process.env.NEXTAUTH_SECRET, previous: process.env.NEXTAUTH_SECRET_PREVIOUS };

function useSecrets(current: string, previous?: string) {
  process.env.NEXTAUTH_SECRET = current;
  if (previous) process.env.NEXTAUTH_SECRET_PREVIOUS = previous;
  else delete process.env.NEXTAUTH_SECRET_PREVIOUS;
  resetEnvironment();
}

afterEach(() => {
  process.env.NEXTAUTH_SECRET = saved.secret;
  if (saved.previous === undefined) delete process.env.NEXTAUTH_SECRET_PREVIOUS;
  else process.env.NEXTAUTH_SECRET_PREVIOUS = saved.previous;
  resetEnvironment();
});

/** Plugin settings as the code before the secret box stored them. */
function earlierPluginFormat(values: Record<string, string>, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(hkdfSync("sha256", secret, "xclaw", "plugin secret config v1", 32)), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(values), "utf8"), cipher.final()]);
  return `v1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${sealed.toString("base64url")}`;
}

describe("rotating NEXTAUTH_SECRET", () => {
  it("keeps cookies and stored secrets readable during the rotation, then re-seals them under the new secret", { timeout: 60_000 }, async () => {
    useSecrets(OLD);
    const { user } = await createUser();
    const cookie = await encodeSessionToken({ userId: user.id, sessionVersion: user.sessionVersion });
    const channel = await db().notificationChannel.create({
      data: { userId: user.id, name: "ops", kind: "WEBHOOK", configSealed: sealSecret(JSON.stringify({ url: "https://hooks.example.com/abc" }), "notification-channel"), target: "hooks.example.com" },
    });
    const endpoint = await db().webhookEndpoint.create({
      data: { userId: user.id, name: "alerts", secretHash: randomBytes(16).toString("hex"), secretSealed: sealSecret("whsec_rotation", "webhook-endpoint"), prefix: "whsec" },
    });
    const plugin = await db().plugin.create({
      data: { id: `rotation-${randomBytes(3).toString("hex")}`, name: "Rotation", version: "1.0.0", source: "BUNDLED", directory: "/nowhere", secretConfig: earlierPluginFormat({ token: "plugin-token" }, OLD) },
    });
    // A value sealed under some other secret altogether: reported, never overwritten.
    useSecrets("an-unrelated-secret-that-nobody-has-anymore-000");
    const lost = await db().notificationChannel.create({ data: { userId: user.id, name: "lost", kind: "WEBHOOK", configSealed: sealSecret("{}", "notification-channel"), target: "x" } });

    // The new secret alone: the old values cannot be read, the old cookie is no session.
    useSecrets(NEW);
    expect(() => openSecret(channel.configSealed, "notification-channel")).toThrow(/cannot be read/);
    expect(await decodeSessionToken(cookie)).toBeUndefined();

    // Both secrets, as every process is restarted with them: everything still works.
    useSecrets(NEW, OLD);
    expect(JSON.parse(openSecret(channel.configSealed, "notification-channel"))).toEqual({ url: "https://hooks.example.com/abc" });
    expect(openSecret(endpoint.secretSealed, "webhook-endpoint")).toBe("whsec_rotation");
    expect(decryptSecrets(plugin.secretConfig)).toEqual({ token: "plugin-token" });
    expect((await decodeSessionToken(cookie))?.userId).toBe(user.id);

    const results = await resealStoredSecrets({ databaseUrl: databaseUrl(), columns: SEALED_COLUMNS });
    const byColumn = Object.fromEntries(results.map((result) => [result.column, result]));
    expect(byColumn["notification_channels.configSealed"]).toMatchObject({ resealed: 1, unreadable: 1 });
    expect(byColumn["webhook_endpoints.secretSealed"]).toMatchObject({ resealed: 1, unreadable: 0 });
    expect(byColumn["plugins.secretConfig"]).toMatchObject({ resealed: 1, unreadable: 0 });
    // A second pass finds everything current.
    const again = await resealStoredSecrets({ databaseUrl: databaseUrl(), columns: SEALED_COLUMNS });
    expect(again.reduce((sum, result) => sum + result.resealed, 0)).toBe(0);

    // The old secret can go: the stored values open with the new one alone.
    useSecrets(NEW);
    const stored = await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } });
    expect(JSON.parse(openSecret(stored.configSealed, "notification-channel"))).toEqual({ url: "https://hooks.example.com/abc" });
    expect(openSecret((await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).secretSealed, "webhook-endpoint")).toBe("whsec_rotation");
    const pluginRow = await db().plugin.findUniqueOrThrow({ where: { id: plugin.id } });
    expect(pluginRow.secretConfig!.startsWith("v1:")).toBe(true);
    expect(decryptSecrets(pluginRow.secretConfig)).toEqual({ token: "plugin-token" });
    // The unreadable value is still there as it was.
    expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: lost.id } })).configSealed).toBe(lost.configSealed);
  });
});
