/** Reads an AI SDK UI message stream (SSE) response into its chunks and the assistant text. */
export type TChunk = { type: string; [key: string]: unknown };

export async function readUiStream(response: Response): Promise<{ chunks: TChunk[]; text: string; tools: TChunk[] }> {
  const body = await response.text();
  const chunks: TChunk[] = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const payload = line.slice(6).trim();
    if (payload === "[DONE]") continue;
    chunks.push(JSON.parse(payload) as TChunk);
  }
  // Text shown to the user: deltas of text parts that were not discarded afterwards.
  const discarded = new Set(chunks.filter((chunk) => chunk.type === "data-text-discard").map((chunk) => (chunk.data as { textId: string }).textId));
  const text = chunks
    .filter((chunk) => chunk.type === "text-delta" && !discarded.has(chunk.id as string))
    .map((chunk) => chunk.delta as string)
    .join("");
  return { chunks, text, tools: chunks.filter((chunk) => chunk.type.startsWith("tool-")) };
}
