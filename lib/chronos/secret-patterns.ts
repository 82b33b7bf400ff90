/**
 * What scan_secrets looks for: the seeds' patterns (OpenAI and Anthropic keys, private key blocks,
 * AWS access keys, `secret = "…"` / `api_key = "…"` assignments, bearer tokens) plus the common
 * token formats of well-known services, each by its documented prefix. Found values are masked:
 * the report names the file, line and kind, and shows at most the first four characters.
 */
export type TSecretPattern = { name: string; pattern: RegExp };

// Order matters where prefixes overlap: the more specific pattern comes first and wins its span.
export const SECRET_PATTERNS: TSecretPattern[] = [
  { name: "Private key block", pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g },
  { name: "Anthropic key", pattern: /sk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "OpenAI key", pattern: /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: "AWS access key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { name: "GitLab token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: "Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "Slack webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { name: "Feishu bot webhook", pattern: /https:\/\/open\.(?:feishu\.cn|larksuite\.com)\/open-apis\/bot\/v2\/hook\/[A-Za-z0-9-]{16,}/g },
  { name: "Stripe key", pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: "Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: "Hugging Face token", pattern: /\bhf_[A-Za-z]{30,}\b/g },
  { name: "xclaw token", pattern: /\b(?:xclaw|xwh)_[A-Za-z0-9_-]{40,}/g },
  { name: "JSON Web Token", pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: "Password in URL", pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@'"]{1,100}:[^\s@/'"]{3,200}@[^\s/'"]+/g },
  { name: "Bearer token", pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/g },
  { name: "Generic secret", pattern: /\b(?:secret|password|passwd|pwd|token)[A-Za-z0-9_-]*\s*[:=]\s*["'][^"'\s]{8,}["']/gi },
  { name: "API key assignment", pattern: /\b(?:api[_-]?key|apikey|access[_-]?key)[A-Za-z0-9_-]*\s*[:=]\s*["'][^"'\s]{8,}["']/gi },
];

export type TSecretFinding = { line: number; kind: string; masked: string };

/** The first four characters, then how long the value was: enough to recognise it, not to use it. */
export function maskSecret(value: string): string {
  return `${value.slice(0, 4)}…(${value.length} chars)`;
}

/** Every finding in a text, one per overlapping span (the first matching pattern names it). */
export function findSecrets(text: string): TSecretFinding[] {
  const findings: TSecretFinding[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.length > 20_000) continue;
    const taken: [number, number][] = [];
    for (const { name, pattern } of SECRET_PATTERNS) {
      pattern.lastIndex = 0;
      for (const match of line.matchAll(pattern)) {
        const start = match.index ?? 0;
        const end = start + match[0].length;
        if (taken.some(([from, to]) => start < to && end > from)) continue;
        taken.push([start, end]);
        findings.push({ line: index + 1, kind: name, masked: maskSecret(match[0]) });
      }
    }
  }
  return findings;
}
