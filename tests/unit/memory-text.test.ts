import { describe, expect, it } from "vitest";
import { chunkText, estimateTokens, splitSentences } from "@/lib/memory/knowledge/chunking";
import { cleanFilename, detectDocument } from "@/lib/memory/knowledge/document-types";
import { htmlToMarkdown } from "@/lib/memory/knowledge/document-text";
import { parseJsonAnswer } from "@/lib/memory/memories/extraction-model";
import { fuseRankings, RRF_K } from "@/lib/memory/search/hybrid-search";
import { searchableText, searchQuery } from "@/lib/memory/search/search-text";

describe("search text", () => {
  it("segments Chinese into words (plus their characters) so a Chinese query matches", () => {
    const indexed = searchableText("用户喜欢用 TypeScript 写代码，缩进两个空格。").split(" ");
    expect(indexed).toEqual(expect.arrayContaining(["用户", "喜欢", "typescript", "代码", "空格", "缩", "进"]));
    expect(searchQuery("缩进几个空格？")!.split(" | ")).toEqual(expect.arrayContaining(["空格", "缩", "进"]));
  });

  it("builds queries that cannot carry tsquery operators, and none from a query without words", () => {
    expect(searchQuery("it's (a) & !b | c:* <-> 'd'")).toBe("it | s | a | b | c | d");
    expect(searchQuery("?!  …")).toBeNull();
  });
});

describe("chunking", () => {
  it("follows headings, keeps sentences (also 。！？) whole, and overlaps chunks cut for size", () => {
    const sentences = Array.from({ length: 36 }, (_, index) => `第${index}句说明向量数据库是长期记忆${["。", "！", "？"][index % 3]}`).join("");
    const text = `# 记忆\n\n${sentences}\n\n## 索引\n\nHNSW 是一种图索引。`;
    const chunks = chunkText(text, { chunkTokens: 100, overlapTokens: 20 });
    expect(chunks.at(-1)).toMatchObject({ heading: "记忆 › 索引" });
    const body = chunks.slice(0, -1);
    expect(body.length).toBeGreaterThan(2);
    for (const chunk of body) {
      expect(chunk.heading).toBe("记忆");
      expect(estimateTokens(chunk.content)).toBeLessThanOrEqual(100);
      // Every chunk ends at a sentence end.
      expect(chunk.content).toMatch(/[。！？]$/);
    }
    // The second chunk starts with the last sentences of the first (whole sentences, within the overlap).
    const overlap = [...Array(body[1]!.content.length).keys()].map((length) => body[1]!.content.slice(0, length + 1)).filter((prefix) => body[0]!.content.endsWith(prefix)).at(-1)!;
    expect(splitSentences(overlap).join("")).toBe(overlap);
    expect(estimateTokens(overlap)).toBeGreaterThanOrEqual(8);
    expect(estimateTokens(overlap)).toBeLessThanOrEqual(20);
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, index) => index + 1));
  });

  it("splits English by sentence and cuts a run-on line by length", () => {
    const chunks = chunkText(`# Guide\n\n${"This is one sentence about setup. ".repeat(60)}\n\n${"x".repeat(3_000)}`, { chunkTokens: 200, overlapTokens: 30 });
    expect(chunks.every((chunk) => estimateTokens(chunk.content) <= 200)).toBe(true);
    expect(chunks[0]!.content.startsWith("# Guide")).toBe(true);
  });
});

describe("documents", () => {
  it("cleans file names to a label without path parts or control characters", () => {
    expect(cleanFilename("../../etc/passwd")).toBe("passwd");
    expect(cleanFilename("C:\\Users\\me\\report\u202e.pdf")).toBe("report.pdf");
    expect(cleanFilename("...")).toBe("document");
  });

  it("decides the type from the content, not the name", async () => {
    await expect(detectDocument("a.md", new TextEncoder().encode("# hi"))).resolves.toMatchObject({ kind: "markdown", text: "# hi" });
    await expect(detectDocument("a.pdf", new TextEncoder().encode("# hi"))).rejects.toThrow(/not one: it does not start with %PDF-/);
    await expect(detectDocument("a.txt", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]))).rejects.toThrow(/its content is application\/zip/);
    await expect(detectDocument("a.txt", new Uint8Array([0x61, 0, 0x62]))).rejects.toThrow(/NUL bytes/);
    await expect(detectDocument("a.docx", new TextEncoder().encode("x"))).rejects.toThrow(/only .txt/);
  });

  it("reduces HTML to its readable text as Markdown", () => {
    const { text } = htmlToMarkdown(`<html><head><title>T</title><script>alert(1)</script></head><body><h2>Setup</h2><p>Install <a href="https://x.example">the tool</a>.</p></body></html>`);
    expect(text).toContain("## Setup");
    expect(text).toContain("Install the tool.");
    expect(text).not.toContain("alert");
    expect(text).not.toContain("x.example");
  });
});

describe("fusion and model answers", () => {
  it("fuses rankings with reciprocal rank fusion", () => {
    const scores = fuseRankings([[{ id: "a" }, { id: "b" }], [{ id: "b" }, { id: "c" }]]);
    expect(scores.get("b")).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(scores.get("a")).toBeCloseTo(1 / (RRF_K + 1));
    expect([...scores.entries()].sort((x, y) => y[1] - x[1])[0]![0]).toBe("b");
  });

  it("reads the JSON object out of a model's answer and refuses anything else", async () => {
    const { z } = await import("zod");
    const schema = z.object({ facts: z.array(z.string()) });
    expect(parseJsonAnswer('Sure!\n```json\n{"facts": ["a"]}\n```', schema)).toEqual({ facts: ["a"] });
    expect(() => parseJsonAnswer("no json here", schema)).toThrow(/did not answer with the JSON/);
    expect(() => parseJsonAnswer('{"facts": 3}', schema)).toThrow(/expected shape/);
  });
});
