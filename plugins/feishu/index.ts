import { z } from "zod";
import { definePluginEntry } from "../../lib/plugins/sdk";

/**
 * Feishu messages (the seeds' feishu_send_message). The tenant access token is fetched once and
 * kept by the "tenant-token" service until `refreshMarginSeconds` before it expires (Feishu issues
 * it for two hours), so messages do not each pay for an authentication round trip and a token
 * never expires in the middle of a send. A token Feishu rejects anyway is refreshed once.
 */
type TTokenAnswer = { code: number; msg?: string; tenant_access_token?: string; expire?: number };
type TSendAnswer = { code: number; msg?: string; data?: { message_id?: string } };

/** Feishu's codes for an invalid or expired access token. */
const TOKEN_INVALID = new Set([99991661, 99991663, 99991668]);

export default definePluginEntry({
  register(api) {
    const baseUrl = String(api.config.baseUrl ?? "https://open.feishu.cn").replace(/\/+$/, "");
    const marginMs = Number(api.config.refreshMarginSeconds ?? 300) * 1000;
    let cached: { token: string; refreshAt: number } | undefined;
    let pending: Promise<string> | undefined;

    const appSecret = () => {
      const secret = (api.config.appSecret as string | undefined) || api.secret("FEISHU_APP_SECRET");
      if (!secret) throw new Error("No app secret: set it on /admin/plugins or FEISHU_APP_SECRET in the server's environment.");
      return secret;
    };

    async function fetchToken(): Promise<string> {
      const response = await api.fetch(`${baseUrl}/open-apis/auth/v3/tenant_access_token/internal`, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ app_id: api.config.appId, app_secret: appSecret() }),
      });
      const data = (await response.json()) as TTokenAnswer;
      if (data.code !== 0 || !data.tenant_access_token) throw new Error(`Feishu refused the app's credentials: ${data.msg ?? `code ${data.code}`}`);
      const lifetimeMs = (data.expire ?? 7200) * 1000;
      cached = { token: data.tenant_access_token, refreshAt: Date.now() + lifetimeMs - marginMs };
      return cached.token;
    }

    /** One token request at a time, however many sends need one. */
    function token(force = false): Promise<string> {
      if (!force && cached && Date.now() < cached.refreshAt) return Promise.resolve(cached.token);
      pending ??= fetchToken().finally(() => (pending = undefined));
      return pending;
    }

    api.registerService({
      id: "tenant-token",
      start() {
        // The first token is fetched when the first message is sent, so a wrong secret shows up there.
      },
      stop() {
        cached = undefined;
      },
    });

    api.registerTool({
      name: "send_message",
      description: "Send a text message on Feishu to a person or a group chat. receive_id_type says what receive_id is (open_id by default; chat_id for groups).",
      input: z.object({
        receive_id: z.string().trim().min(1).max(200),
        receive_id_type: z.enum(["open_id", "user_id", "union_id", "email", "chat_id"]).default("open_id"),
        text: z.string().min(1).max(20_000),
      }),
      risk: "external",
      async execute(input, context) {
        const send = async (accessToken: string) => {
          const response = await api.fetch(`${baseUrl}/open-apis/im/v1/messages?receive_id_type=${input.receive_id_type}`, {
            method: "POST",
            signal: context.signal,
            headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${accessToken}` },
            body: JSON.stringify({ receive_id: input.receive_id, msg_type: "text", content: JSON.stringify({ text: input.text }) }),
          });
          return (await response.json()) as TSendAnswer;
        };
        let answer = await send(await token());
        if (TOKEN_INVALID.has(answer.code)) answer = await send(await token(true));
        if (answer.code !== 0) return { text: `Feishu did not send the message: ${answer.msg ?? `code ${answer.code}`}`, isError: true };
        return `Sent (message id ${answer.data?.message_id ?? "unknown"}).`;
      },
    });
  },
});
