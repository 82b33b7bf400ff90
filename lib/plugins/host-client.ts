import { ZPluginState, ZToolCallResponse, type TPluginSpec, type TPluginState, type TToolCallResponse } from "./host-protocol";

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
      response = await fetch(`${this.url.replace(/\/+$/, "")}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (timeout.aborted) throw new Error(`the plugin host did not answer within ${Math.round(timeoutMs / 1000)} s`);
      throw new Error(`the plugin host is not reachable (${(error as Error).message})`);
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

  async call(options: { pluginId: string; tool: string; input: unknown; context: { userId: string; sessionId: string }; timeoutMs: number; signal?: AbortSignal }): Promise<TToolCallResponse> {
    const answer = await this.request("POST", `/v1/plugins/${options.pluginId}/call`, { tool: options.tool, input: options.input, context: options.context }, options.timeoutMs + 15_000, options.signal);
    return ZToolCallResponse.parse(answer);
  }
}

export function pluginHostFromEnvironment(): PluginHostClient | undefined {
  const url = process.env.PLUGIN_HOST_URL;
  const secret = process.env.PLUGIN_HOST_SECRET;
  return url && secret ? new PluginHostClient(url, secret) : undefined;
}
