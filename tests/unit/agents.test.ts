import { describe, expect, it } from "vitest";
import { turnsOf } from "@/lib/agents/agents-capability";
import { parseWorkerReply, verifyPointers } from "@/lib/agents/reply-contract";
import { keywordMatches, routeByKeywords } from "@/lib/agents/team-router";
import type { Step } from "@/lib/db/generated/client";

describe("the worker reply contract", () => {
  it("reads the JSON contract, also inside a code fence or with words around it", () => {
    const plain = parseWorkerReply('{"status":"success","summary_data":{"score":7},"artifact_pointers":{"code":"shared/abc/jwt.ts"}}');
    expect(plain).toEqual({ status: "success", summary: { score: 7 }, artifactPointers: { code: "shared/abc/jwt.ts" }, structured: true });
    const fenced = parseWorkerReply('Here you go:\n```json\n{"status":"error","summary_data":{"why":"no spec"},"artifact_pointers":{}}\n```');
    expect(fenced).toMatchObject({ status: "error", summary: { why: "no spec" }, structured: true });
    const chatty = parseWorkerReply('Done! {"status":"success","summary_data":"short answer","artifact_pointers":{}} Bye.');
    expect(chatty).toMatchObject({ status: "success", summary: "short answer" });
  });

  it("falls back to the text when the reply is not the contract", () => {
    expect(parseWorkerReply("Redis, because sessions are hot data.")).toEqual({ status: "success", summary: "Redis, because sessions are hot data.", artifactPointers: {}, structured: false });
    expect(parseWorkerReply('{"answer": 42}')).toMatchObject({ structured: false, summary: '{"answer": 42}' });
    expect(parseWorkerReply("   ")).toMatchObject({ status: "error", structured: false });
    // Pointers that are not strings are dropped.
    expect(parseWorkerReply('{"status":"success","summary_data":{},"artifact_pointers":{"a":1,"b":"shared/x/b.md"}}').artifactPointers).toEqual({ b: "shared/x/b.md" });
  });

  it("keeps only pointers to files the worker delivered, and adds delivered files it forgot", () => {
    const delivered = ["shared/abc/jwt.ts", "shared/abc/README.md"];
    expect(verifyPointers({ code: "shared/abc/jwt.ts", invented: "shared/abc/secret.ts", docs: "README.md" }, delivered)).toEqual({
      pointers: { code: "shared/abc/jwt.ts", docs: "shared/abc/README.md" },
      invented: ["shared/abc/secret.ts"],
    });
    expect(verifyPointers({}, delivered).pointers).toEqual({ "jwt.ts": "shared/abc/jwt.ts", "README.md": "shared/abc/README.md" });
  });
});

describe("the team router", () => {
  const members = ["coder", "reviewer", "writer", "skeptic", "optimizer"];

  it("routes by Chinese and English keywords", () => {
    expect(routeByKeywords("帮我看看这段代码有没有 SQL 注入漏洞", members)).toMatchObject({ member: "skeptic" });
    expect(routeByKeywords("Please review this function", members)).toMatchObject({ member: "reviewer" });
    expect(routeByKeywords("给这个模块加上 JSDoc 注释", members)).toMatchObject({ member: "writer" });
    expect(routeByKeywords("How do I optimise this loop? It is too slow.", members)).toMatchObject({ member: "optimizer" });
    expect(routeByKeywords("分析一下这个函数的性能", members)).toMatchObject({ member: "optimizer" });
    expect(routeByKeywords("Implement a JWT signer in Node.js", members)).toMatchObject({ member: "coder" });
  });

  it("sends compound tasks and unmatched messages to the orchestrator", () => {
    expect(routeByKeywords("帮我实现 JWT 模块，写完后做代码审查", members)).toMatchObject({ member: null });
    expect(routeByKeywords("What's the weather like?", members)).toEqual({ member: null, reason: "no keyword matched" });
    // Only members of the team: a rule for someone absent does not route.
    expect(routeByKeywords("Please review this", ["coder", "writer"])).toMatchObject({ member: null });
  });

  it("checks a team's own rules first", () => {
    const rules = [{ member: "writer", keywords: ["周报", "weekly report"] }];
    expect(routeByKeywords("写一份周报", members, rules)).toEqual({ member: "writer", reason: "keyword “周报”" });
    expect(routeByKeywords("Draft the Weekly Report please", members, rules)).toMatchObject({ member: "writer" });
  });

  it("matches English keywords at the start of a word only", () => {
    expect(keywordMatches("a prefix", "fix")).toBe(false);
    expect(keywordMatches("please fix it", "fix")).toBe(true);
    expect(keywordMatches("optimizations", "optimi")).toBe(true);
    expect(keywordMatches("有没有漏洞", "漏洞")).toBe(true);
  });
});

describe("a team member's own conversation", () => {
  let seq = 0;
  const step = (type: Step["type"], name: string, input: unknown): Step => ({ id: `s${++seq}`, seq, type, name, input }) as Step;

  it("keeps only the turns routed to that member", () => {
    const steps = [
      step("USER_INPUT", "user", { text: "SQL injection?" }),
      step("SYSTEM_NOTE", "team-route", { text: "skeptic answers", member: "skeptic" }),
      step("MODEL_CALL", "model", {}),
      step("USER_INPUT", "user", { text: "review this" }),
      step("SYSTEM_NOTE", "team-route", { text: "reviewer answers", member: "reviewer" }),
      step("MODEL_CALL", "model", {}),
      step("USER_INPUT", "user", { text: "XSS too?" }),
      step("MODEL_CALL", "model", {}),
      step("SYSTEM_NOTE", "team-route", { text: "skeptic answers", member: "skeptic" }),
    ];
    expect(turnsOf("skeptic", steps).map((kept) => kept.seq)).toEqual([1, 2, 3, 7, 8, 9]);
    expect(turnsOf("reviewer", steps).map((kept) => kept.seq)).toEqual([4, 5, 6]);
  });
});
