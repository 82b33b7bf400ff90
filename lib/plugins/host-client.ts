import { environment } from "@/lib/config/environment";
import { ZCallStreamLine, ZPluginState, type TPluginSpec, type TPluginState, type TToolCallResponse, type TWorkspaceAccess, type TWorkspaceAnswer, type TWorkspaceRequest } from "./host-protocol";

/**
 * The app's side of the plugin host: a thin HTTP client (PLUGIN_HOST_URL + PLUGIN_HOST_SECRET).
 * It holds no plugin objects; the host runs them.
 */
export class PluginHostClient {
  constructor(
    private readonly url: string,
    private readonly secret: string,
  ) {}

  private async request(method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.base()}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw this.requestError(error, signal, timeout, timeoutMs);
    }
    const payload = (await response.json().catch(() => ({}))) as { error?: string };
    if (!response.ok) throw new Error(`the plugin host refused the request: ${payload.error ?? `HTTP ${response.status}`}`);
    return payload;
  }

  async list(): Promise<TPluginState[]> {
    const answer = (await this.request("GET", "/v1/plugins", undefined, 10_000)) as { plugins: unknown };
    return ZPluginState.array().parse(answer.plugins);
  }

  async load(spec: TPluginSpec): Promise<TPluginState> {
    return ZPluginState.parse(await this.request("PUT", `/v1/plugins/${spec.id}`, spec, 120_000));
  }

  async unload(id: string): Promise<void> {
    await this.request("DELETE", `/v1/plugins/${id}`, undefined, 60_000);
  }

  /**
   * One tool call. The host answers with newline-delimited JSON: the plugin's workspace requests,
   * which `onWorkspace` carries out for the caller (each answer posted back), then the result.
   */
  async call(options: {
    pluginId: string;
    tool: string;
    input: unknown;
    context: { userId: string; sessionId: string };
    timeoutMs: number;
    signal?: AbortSignal;
    workspace?: TWorkspaceAccess;
    onWorkspace?: (request: TWorkspaceRequest) => Promise<TWorkspaceAnswer>;
  }): Promise<TToolCallResponse> {
    const timeoutMs = options.timeoutMs + 15_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(`${this.base()}/v1/plugins/${options.pluginId}/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ tool: options.tool, input: options.input, context: options.context, workspace: options.workspace ?? "none" }),
        signal,
      });
    } catch (error) {
      throw this.requestError(error, options.signal, timeout, timeoutMs);
    }
    if (!response.ok || !response.body) {
      const payload = (await response.json().catch(() => ({}))) as { error?: string };
      throw new Error(`the plugin host refused the request: ${payload.error ?? `HTTP ${response.status}`}`);
    }
    let buffered = "";
    const decoder = new TextDecoder();
    try {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = ZCallStreamLine.parse(JSON.parse(buffered.slice(0, newline)));
          buffered = buffered.slice(newline + 1);
          if (line.type === "result") return { text: line.text, isError: line.isError };
          void this.answerWorkspace(line.callToken, line.requestId, line.request, options.onWorkspace);
        }
      }
    } catch (error) {
      throw this.requestError(error, options.signal, timeout, timeoutMs);
    }
    throw new Error("the plugin host ended the call without an answer");
  }

  private async answerWorkspace(callToken: string, requestId: number, request: TWorkspaceRequest, onWorkspace?: (request: TWorkspaceRequest) => Promise<TWorkspaceAnswer>) {
    let answer: TWorkspaceAnswer;
    try {
      answer = onWorkspace ? await onWorkspace(request) : { ok: false, error: "This call has no workspace." };
    } catch (error) {
      answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    // The call may have ended meanwhile (the host then answers 404): nobody is waiting any more.
    await this.request("POST", `/v1/calls/${callToken}/workspace`, { requestId, ...answer }, 30_000).catch(() => undefined);
  }

  private base(): string {
    return this.url.replace(/\/+$/, "");
  }

  private requestError(error: unknown, signal: AbortSignal | undefined, timeout: AbortSignal, timeoutMs: number): unknown {
    if (signal?.aborted) return error;
    if (timeout.aborted) return new Error(`the plugin host did not answer within ${Math.round(timeoutMs / 1000)} s`);
    return new Error(`the plugin host is not reachable (${(error as Error).message})`);
  }
}

export function pluginHostFromEnvironment(): PluginHostClient | undefined {
  const { PLUGIN_HOST_URL: url, PLUGIN_HOST_SECRET: secret } = environment();
  return url && secret ? new PluginHostClient(url, secret) : undefined;
}
