/**
 * The worker reply contract of the seeds: `{status, summary_data, artifact_pointers}` as JSON, with
 * a text fallback when the reply is not JSON (the whole text becomes the summary). Models wrap JSON
 * in code fences or add a sentence around it; both are accepted. Pointers are checked against what
 * the worker really delivered (verifyPointers): an invented path never reaches the orchestrator.
 */
export type TWorkerReply = {
  status: "success" | "error";
  summary: unknown;
  artifactPointers: Record<string, string>;
  /** Whether the reply followed the JSON contract. */
  structured: boolean;
};

const MAX_FALLBACK_CHARACTERS = 20_000;

function candidates(text: string): string[] {
  const trimmed = text.trim();
  const found = [trimmed];
  for (const match of trimmed.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)) found.push(match[1]!.trim());
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  if (first >= 0 && last > first) found.push(trimmed.slice(first, last + 1));
  return found;
}

function pointersOf(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

export function parseWorkerReply(text: string): TWorkerReply {
  for (const candidate of candidates(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) continue;
    const record = parsed as Record<string, unknown>;
    if (record.status !== "success" && record.status !== "error") continue;
    const { status, summary_data: summaryData, artifact_pointers: pointers, ...rest } = record;
    return {
      status: status as "success" | "error",
      summary: summaryData ?? (Object.keys(rest).length ? rest : {}),
      artifactPointers: pointersOf(pointers),
      structured: true,
    };
  }
  const plain = text.trim();
  if (!plain) return { status: "error", summary: "The worker gave no answer.", artifactPointers: {}, structured: false };
  return {
    status: "success",
    summary: plain.length > MAX_FALLBACK_CHARACTERS ? `${plain.slice(0, MAX_FALLBACK_CHARACTERS)}\n[cut: ${plain.length - MAX_FALLBACK_CHARACTERS} more characters]` : plain,
    artifactPointers: {},
    structured: false,
  };
}

/**
 * Keeps the pointers that name a delivered file (by its path, or its name inside the task's
 * folder), adds delivered files the reply forgot, and reports the ones that were invented.
 */
export function verifyPointers(pointers: Record<string, string>, delivered: string[]): { pointers: Record<string, string>; invented: string[] } {
  const kept: Record<string, string> = {};
  const invented: string[] = [];
  const used = new Set<string>();
  for (const [name, pointer] of Object.entries(pointers)) {
    const normalized = pointer.trim().replace(/^\.?\//, "").replace(/^workspace\//, "");
    const match = delivered.find((path) => path === normalized || path.endsWith(`/${normalized}`));
    if (match) {
      kept[name] = match;
      used.add(match);
    } else invented.push(pointer);
  }
  for (const path of delivered) {
    if (used.has(path)) continue;
    let name = path.split("/").at(-1) ?? path;
    while (name in kept) name = `${name}_`;
    kept[name] = path;
  }
  return { pointers: kept, invented };
}
