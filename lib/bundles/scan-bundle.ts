import { bundleSha256 } from "./bundle-hash";
import { bundleExtension, type TBundleFile, type TBundleRefusal } from "./bundle-files";

/**
 * The review report of an uploaded bundle. It looks for what ClawHavoc-style skills did on
 * OpenClaw's hub (fake "prerequisites": paste this into a terminal, download and run this
 * installer, a base64 payload, a password-protected archive) and for what hides text from a
 * reviewer (bidi and zero-width characters, Unicode tag characters), plus binaries, credential
 * paths and URLs outside the hosts the bundle declares. It is a reviewer's aid, not a proof of
 * safety: SECURITY.md ("Plugins and skills") lists what it cannot see.
 *
 * Severities: `blocked` (never stored: unsafe to unpack), `high` (enabling needs the admin to
 * acknowledge it), `medium` and `info` (shown).
 */
export type TFindingSeverity = "blocked" | "high" | "medium" | "info";

export type TScanFinding = { severity: TFindingSeverity; rule: string; path?: string; line?: number; detail: string; excerpt?: string };

export type TScanReport = {
  sha256: string;
  fileCount: number;
  totalBytes: number;
  files: { path: string; bytes: number }[];
  findings: TScanFinding[];
  /** refused: nothing was stored; flagged: has high findings; clean: nothing high. */
  verdict: "refused" | "flagged" | "clean";
};

const MAX_FINDINGS_PER_RULE_AND_FILE = 5;
const MAX_FINDINGS = 200;

const BINARY_EXTENSIONS = new Set([".exe", ".dll", ".so", ".dylib", ".bin", ".node", ".wasm", ".jar", ".class", ".pyc", ".msi", ".dmg", ".pkg", ".deb", ".rpm", ".apk", ".app", ".scr", ".com"]);
const ARCHIVE_EXTENSIONS = new Set([".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar"]);
const SCRIPT_EXTENSIONS = new Set([".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".bat", ".cmd"]);

/** Characters that make text read differently from what it is (Trojan Source, ASCII smuggling). */
const INVISIBLE = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060-\u2064\u180E\u061C\uFEFF]|[\u{E0000}-\u{E007F}]/u;
const INVISIBLE_GLOBAL = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060-\u2064\u180E\u061C\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

type TTextRule = { rule: string; severity: TFindingSeverity; pattern: RegExp; detail: string };

const TEXT_RULES: TTextRule[] = [
  {
    rule: "pipe-to-shell",
    severity: "high",
    pattern:
      /\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|node|perl|ruby|iex|invoke-expression)\b|(?:ba|z)?sh\s+<\(\s*(?:curl|wget)|\$\(\s*(?:curl|wget)[^)]*\)|\beval\s+["']?\$\(\s*(?:curl|wget)|base64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\|\s*base64\s+(?:-d|--decode)/i,
    detail: "Downloads something and pipes it straight into a shell or interpreter (the ClawHavoc \"prerequisite\" pattern).",
  },
  {
    rule: "download-and-run",
    severity: "high",
    pattern:
      /https?:\/\/\S+\.(?:exe|msi|dmg|pkg|ps1|bat|cmd|scr|deb|rpm|appimage|run|command)\b|\bchmod\s+\+x\b[^\n]*&&[^\n]*\.\/|\b(?:download|run|execute|install)\b[^\n]{0,60}\b(?:installer|prerequisite|setup\.exe|helper binary|agent binary)\b|\bxattr\s+-[a-z]*d[a-z]*\s+com\.apple\.quarantine|\b(?:archive|zip)\s+password\b|\bpassword:\s*\S+[^\n]{0,40}\b(?:extract|unzip|archive)/i,
    detail: "Tells the reader to download and run an installer or executable, or to get around the system's protection against downloaded programs.",
  },
  {
    rule: "credential-path",
    severity: "high",
    pattern:
      /(?:^|[\s"'`(=/])(?:~|\$HOME|%USERPROFILE%)?\/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\.config\/gcloud|\.azure\/|\.kube\/config|\.docker\/config\.json|\.git-credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|(?:^|[\s"'`(/])\.env(?:\.local|\.production)?\b(?!\.example)|\/etc\/(?:shadow|passwd|sudoers)\b|login keychain|\bkeychain\b|Login Data|Local State|\bcookies\.sqlite\b|wallet\.dat|\bmetamask\b|\bexodus\b|\bseed phrase\b/i,
    detail: "Refers to a place where credentials or keys live (.env files, SSH keys, cloud or registry credentials, browser or wallet data).",
  },
  {
    rule: "base64-blob",
    severity: "medium",
    pattern: /[A-Za-z0-9+/]{200,}={0,2}/,
    detail: "A long base64 blob: a payload a reviewer cannot read.",
  },
];

const URL_PATTERN = /\bhttps?:\/\/([^\s/?#"'`<>()[\]{}|\\^]+)[^\s"'`<>)\]]*/gi;

function looksBinary(data: Buffer): boolean {
  if (data.length >= 4) {
    const magic = data.readUInt32BE(0);
    if (magic === 0x7f454c46 /* ELF */ || magic === 0xfeedface || magic === 0xfeedfacf || magic === 0xcefaedfe || magic === 0xcffaedfe || magic === 0xcafebabe) return true;
    if (data[0] === 0x4d && data[1] === 0x5a) return true; // MZ: Windows executables
    if (magic === 0x0061736d) return true; // \0asm: WebAssembly
  }
  return data.subarray(0, 8_192).includes(0);
}

function hostAllowed(host: string, declared: readonly string[]): boolean {
  const bare = host.toLowerCase().replace(/^[^@]*@/, "").replace(/:\d+$/, "").replace(/\.$/, "");
  return declared.some((entry) => {
    const allowed = entry.toLowerCase().replace(/:\d+$/, "");
    if (allowed.startsWith("*.")) return bare.endsWith(allowed.slice(1)) || bare === allowed.slice(2);
    return bare === allowed;
  });
}

function excerptOf(line: string, index: number): string {
  const start = Math.max(0, index - 40);
  const text = line.slice(start, start + 160).replace(INVISIBLE_GLOBAL, (character) => `<U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);
  return `${start > 0 ? "…" : ""}${text}${line.length > start + 160 ? "…" : ""}`;
}

export function scanBundle(files: readonly TBundleFile[], options: { refusals?: readonly TBundleRefusal[]; declaredHosts?: readonly string[] } = {}): TScanReport {
  const findings: TScanFinding[] = [];
  const add = (finding: TScanFinding) => {
    if (findings.length < MAX_FINDINGS) findings.push(finding);
  };
  for (const refusal of options.refusals ?? []) add({ severity: "blocked", rule: refusal.rule, path: refusal.path, detail: refusal.detail });
  const declared = options.declaredHosts ?? [];
  for (const file of files) {
    const extension = bundleExtension(file.path);
    if (BINARY_EXTENSIONS.has(extension) || looksBinary(file.data)) {
      add({ severity: "high", rule: "binary", path: file.path, detail: "A binary file: its behaviour cannot be reviewed from the bundle." });
      continue;
    }
    if (ARCHIVE_EXTENSIONS.has(extension)) {
      add({ severity: "high", rule: "nested-archive", path: file.path, detail: "An archive inside the bundle: its contents were not scanned." });
      continue;
    }
    if (SCRIPT_EXTENSIONS.has(extension)) {
      add({ severity: "info", rule: "script", path: file.path, detail: "A script. Skill scripts run only in the user's sandbox, through the shell tool, with approval." });
    }
    const text = file.data.toString("utf8");
    const lines = text.split("\n");
    const counts = new Map<string, number>();
    const note = (finding: TScanFinding) => {
      const count = counts.get(finding.rule) ?? 0;
      counts.set(finding.rule, count + 1);
      if (count < MAX_FINDINGS_PER_RULE_AND_FILE) add(finding);
    };
    lines.forEach((line, index) => {
      const invisible = INVISIBLE_GLOBAL.exec(line);
      INVISIBLE_GLOBAL.lastIndex = 0;
      // A byte-order mark at the very start of a file is harmless.
      if (invisible && !(index === 0 && invisible.index === 0 && invisible[0] === "\uFEFF" && !INVISIBLE.test(line.slice(1)))) {
        note({ severity: "high", rule: "hidden-characters", path: file.path, line: index + 1, detail: "Bidirectional-override, zero-width or tag characters: the text a reviewer sees is not the text the model reads.", excerpt: excerptOf(line, invisible.index) });
      }
      for (const rule of TEXT_RULES) {
        const match = rule.pattern.exec(line);
        if (match) note({ severity: rule.severity, rule: rule.rule, path: file.path, line: index + 1, detail: rule.detail, excerpt: excerptOf(line, match.index) });
      }
      for (const match of line.matchAll(URL_PATTERN)) {
        if (!hostAllowed(match[1]!, declared)) {
          note({ severity: "medium", rule: "undeclared-host", path: file.path, line: index + 1, detail: `Refers to ${match[1]}, which is not among the hosts this bundle declares.`, excerpt: excerptOf(line, match.index) });
        }
      }
    });
  }
  const verdict = findings.some((finding) => finding.severity === "blocked") ? "refused" : findings.some((finding) => finding.severity === "high") ? "flagged" : "clean";
  return {
    sha256: bundleSha256(files),
    fileCount: files.length,
    totalBytes: files.reduce((sum, file) => sum + file.data.length, 0),
    files: files.map((file) => ({ path: file.path, bytes: file.data.length })).sort((a, b) => a.path.localeCompare(b.path)),
    findings,
    verdict,
  };
}
