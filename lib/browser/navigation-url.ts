/**
 * What the agent typed as a URL: "example.com/docs" and "example.com:8080" mean https://…; real
 * schemes are kept (and judged by the URL guard in lib/net).
 */
export function navigationUrl(raw: string): string {
  const trimmed = raw.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[^:/]+:\d+(\/|$)/.test(trimmed) ? trimmed : `https://${trimmed}`;
}
