import { describe, expect, it } from "vitest";
import { keywordsOf, matchesByKeywords } from "@/lib/skills/keywords";
import { parseSkillMarkdown, resolveBaseDir, skillRequirements } from "@/lib/skills/skill-format";
import { requestedSkillNames } from "@/lib/skills/skill-tools";

const skill = (frontMatter: string, body = "Do it.") => `---\n${frontMatter}\n---\n\n${body}\n`;

describe("SKILL.md", () => {
  it("parses the Agent Skills front matter with OpenClaw's requires and user-invocable", () => {
    const parsed = parseSkillMarkdown(skill('name: github\ndescription: "Use gh."\nuser-invocable: false\nmetadata:\n  openclaw:\n    requires:\n      bins: ["gh"]\n      env: ["GH_TOKEN"]'), { folderName: "github" });
    expect(parsed.frontMatter["user-invocable"]).toBe(false);
    expect(skillRequirements(parsed.frontMatter)).toEqual({ bins: ["gh"], env: ["GH_TOKEN"] });
    expect(parsed.body.trim()).toBe("Do it.");
  });

  it.each([
    ["Upper", /lowercase letters, digits and single hyphens/],
    ["-leading", /lowercase letters/],
    ["trailing-", /lowercase letters/],
    ["double--hyphen", /lowercase letters/],
    ["under_score", /lowercase letters/],
    ["a".repeat(65), /at most 64 characters/],
  ])("refuses the name %s", (name, reason) => {
    expect(() => parseSkillMarkdown(skill(`name: "${name}"\ndescription: x`))).toThrow(reason);
  });

  it("requires the name to equal the folder, a description of at most 1024 characters, and a body", () => {
    expect(() => parseSkillMarkdown(skill("name: one\ndescription: x"), { folderName: "two" })).toThrow(/must equal its folder's name "two"/);
    expect(() => parseSkillMarkdown(skill(`name: one\ndescription: "${"d".repeat(1025)}"`))).toThrow(/at most 1024 characters/);
    expect(() => parseSkillMarkdown(skill("name: one\ndescription: ''"))).toThrow(/description.*must not be empty/);
    expect(() => parseSkillMarkdown("---\nname: one\ndescription: x\n---\n")).toThrow(/no instructions/);
    expect(() => parseSkillMarkdown("# no front matter")).toThrow(/must start with YAML front matter/);
    expect(() => parseSkillMarkdown("---\nname: [unclosed\n---\nbody")).toThrow(/not valid YAML/);
  });

  it("refuses YAML aliases (no billion laughs) and accepts CRLF and a byte-order mark", () => {
    expect(() => parseSkillMarkdown(skill("name: one\ndescription: &a x\nlicense: *a"))).toThrow(/not valid YAML/);
    expect(parseSkillMarkdown("\uFEFF---\r\nname: one\r\ndescription: x\r\n---\r\nbody\r\n").frontMatter.name).toBe("one");
  });

  it("replaces every {baseDir} with the folder as the agent sees it", () => {
    expect(resolveBaseDir("node {baseDir}/a.js && cat {baseDir}/b.md", "/workspace/.skills/x")).toBe("node /workspace/.skills/x/a.js && cat /workspace/.skills/x/b.md");
  });

  it("finds $name requests, not prices or shell variables inside words", () => {
    expect(requestedSkillNames("please $sysinfo and ($github) but not a$b or $HOME")).toEqual(["sysinfo", "github"]);
  });
});

describe("keyword rule", () => {
  it("splits Chinese into words (the seeds' \\W+ split dropped them all)", () => {
    expect([...keywordsOf("查询城市的天气预报")]).toEqual(["查询", "城市", "天气", "预报"]);
    expect("查询城市的天气预报".split(/\W+/).filter((word) => word.length > 3)).toEqual([]);
  });

  it("needs two hits, in Chinese and in English", () => {
    expect(matchesByKeywords("查询城市的天气预报和气温", "帮我查一下北京明天的天气预报")).toBe(true);
    expect(matchesByKeywords("查询城市的天气预报和气温", "这段代码有内存泄漏的问题")).toBe(false);
    expect(matchesByKeywords("Query CPU, memory, disk and processes", "show memory usage and disk space")).toBe(true);
    expect(matchesByKeywords("Query CPU, memory, disk and processes", "optimise the memory of this code")).toBe(false);
  });
});
