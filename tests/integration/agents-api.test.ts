import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteAdminAgent, PATCH as patchAdminAgent } from "@/app/api/admin/agents/[id]/route";
import { GET as listAdminAgents, POST as createAdminAgent } from "@/app/api/admin/agents/route";
import { DELETE as deleteAgent, GET as getAgent, PATCH as patchAgent } from "@/app/api/agents/[id]/route";
import { GET as readArtifact } from "@/app/api/agents/artifacts/route";
import { GET as listAgentsRoute, POST as createAgentRoute } from "@/app/api/agents/route";
import { POST as createTeam } from "@/app/api/teams/route";
import { db } from "@/lib/db/client";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import type { TRecordedRequest } from "../fake-llm/types";
import { systemOf } from "../support/agents";
import { clearProviderEnvironment, sendChat, useFakeProvider } from "../support/chat";
import { call, createUser } from "../support/http";

/** The agents API (GET /api/agents contract, own and global profiles, tenancy) and team chats. */
let fake: TFakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

const profile = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `${name} does things`, systemPrompt: `You are ${name}, a test agent.`, ...extra });

describe("GET /api/agents", () => {
  it("lists the bundled agents as global, global profiles, and the caller's own as mine — nobody else's", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const admin = await createUser({ role: "ADMIN" });
    expect((await call(createAdminAgent, "/api/admin/agents", { cookie: admin.cookie, body: profile("translator") })).status).toBe(201);
    expect((await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: profile("poet", { allowedTools: ["view_file"], timeoutSeconds: 30 }) })).status).toBe(201);
    expect((await call(createAgentRoute, "/api/agents", { cookie: bob.cookie, body: profile("bobs-bot") })).status).toBe(201);

    const listed = await call(listAgentsRoute, "/api/agents", { cookie: alice.cookie });
    expect(listed.status).toBe(200);
    const names = listed.json.agents.map((agent: { name: string; scope: string }) => [agent.name, agent.scope]);
    expect(names).toEqual([
      ["coder", "global"],
      ["optimizer", "global"],
      ["poet", "mine"],
      ["reviewer", "global"],
      ["skeptic", "global"],
      ["translator", "global"],
      ["writer", "global"],
    ]);
    for (const agent of listed.json.agents) expect(agent).toEqual(expect.objectContaining({ name: expect.any(String), description: expect.any(String), scope: expect.stringMatching(/^(global|mine)$/) }));
    expect(JSON.stringify((await call(listAgentsRoute, "/api/agents", { cookie: bob.cookie })).json)).not.toContain("poet");
  });

  it("refuses names that are taken, bad input, and other people's profiles (404)", async () => {
    const alice = await createUser();
    const bob = await createUser();
    expect((await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: profile("coder") })).status).toBe(409);
    expect((await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: profile("Bad Name") })).status).toBe(400);
    expect((await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: { ...profile("ok-name"), extra: 1 } })).status).toBe(400);
    const created = await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: profile("helper") });
    expect((await call(createAgentRoute, "/api/agents", { cookie: alice.cookie, body: profile("helper") })).status).toBe(409);
    const id = created.json.agent.id as string;
    expect((await call(getAgent, `/api/agents/${id}`, { cookie: bob.cookie, params: { id } })).status).toBe(404);
    expect((await call(patchAgent, `/api/agents/${id}`, { cookie: bob.cookie, method: "PATCH", body: { description: "mine now" }, params: { id } })).status).toBe(404);
    expect((await call(deleteAgent, `/api/agents/${id}`, { cookie: bob.cookie, method: "DELETE", params: { id } })).status).toBe(404);
    const patched = await call(patchAgent, `/api/agents/${id}`, { cookie: alice.cookie, method: "PATCH", body: { description: "helps", mayDelegate: true }, params: { id } });
    expect(patched.json.agent).toMatchObject({ name: "helper", description: "helps", mayDelegate: true, scope: "mine" });
    expect((await call(deleteAgent, `/api/agents/${id}`, { cookie: alice.cookie, method: "DELETE", params: { id } })).status).toBe(204);
  });

  it("keeps global profiles for admins", async () => {
    const user = await createUser();
    const admin = await createUser({ role: "ADMIN" });
    expect((await call(createAdminAgent, "/api/admin/agents", { cookie: user.cookie, body: profile("sneaky") })).status).toBe(403);
    expect((await call(listAdminAgents, "/api/admin/agents", { cookie: user.cookie })).status).toBe(403);
    const created = await call(createAdminAgent, "/api/admin/agents", { cookie: admin.cookie, body: profile("auditor") });
    const id = created.json.agent.id as string;
    expect((await call(patchAdminAgent, "/x", { cookie: user.cookie, method: "PATCH", body: { description: "x" }, params: { id } })).status).toBe(403);
    // A user's own-profile routes do not reach a global one.
    expect((await call(patchAgent, "/x", { cookie: admin.cookie, method: "PATCH", body: { description: "x" }, params: { id } })).status).toBe(404);
    expect((await call(patchAdminAgent, "/x", { cookie: admin.cookie, method: "PATCH", body: { timeoutSeconds: 120 }, params: { id } })).json.agent.timeoutSeconds).toBe(120);
    expect((await call(deleteAdminAgent, "/x", { cookie: admin.cookie, method: "DELETE", params: { id } })).status).toBe(204);
  });

  it("serves delivered files to their owner only", async () => {
    const alice = await createUser();
    const bob = await createUser();
    await db().agentTask.create({
      data: { userId: alice.user.id, parentSessionId: alice.user.id, parentStepId: alice.user.id, toolCallId: "c", kind: "delegate", index: 0, agent: "coder", taskKey: "abcdef1234", task: "t", taskHash: "h", timeoutMs: 1000 },
    });
    const other = await call(readArtifact, "/api/agents/artifacts?path=shared/abcdef1234/x.md", { cookie: bob.cookie });
    expect(other.status).toBe(404);
    expect((await call(readArtifact, "/api/agents/artifacts?path=shared/abcdef1234/../../private.md", { cookie: alice.cookie })).status).toBe(400);
    expect((await call(readArtifact, "/api/agents/artifacts?path=private.md", { cookie: alice.cookie })).status).toBe(404);
  });
});

describe("team chats", () => {
  function member(request: TRecordedRequest): string {
    return /You are (\w+), a member of the user's team chat/.exec(systemOf(request))?.[1] ?? "orchestrator";
  }

  it("routes each message by Chinese and English keywords to one member, who keeps its own conversation", async () => {
    const { cookie } = await createUser();
    const created = await call(createTeam, "/api/teams", { cookie, body: { members: ["coder", "reviewer", "skeptic"] } });
    expect(created.status).toBe(201);
    const sessionId = created.json.session.id as string;
    expect(created.json.session.title).toBe("Team: coder, reviewer, skeptic");
    fake.script((request) => ({ text: `${member(request)} here` }));

    const first = await sendChat(cookie, sessionId, "这段代码有没有 SQL 注入漏洞？");
    expect(first.text).toBe("skeptic here");
    const second = await sendChat(cookie, sessionId, "Please review this function");
    expect(second.text).toBe("reviewer here");
    const third = await sendChat(cookie, sessionId, "XSS 攻击呢？");
    expect(third.text).toBe("skeptic here");
    const fourth = await sendChat(cookie, sessionId, "帮我实现一个函数，然后做代码审查");
    expect(fourth.text).toBe("orchestrator here");

    // The skeptic's second turn saw its own first turn, not the reviewer's.
    const skepticAgain = fake.requests[2]!;
    const history = JSON.stringify(skepticAgain.body.messages);
    expect(history).toContain("SQL 注入漏洞");
    expect(history).toContain("skeptic here");
    expect(history).not.toContain("Please review this function");
    // The orchestrator sees the whole team conversation, and who answered is in the chat.
    expect(JSON.stringify(fake.requests[3]!.body.messages)).toContain("Please review this function");
    const notes = await db().step.findMany({ where: { sessionId, name: "team-route" }, orderBy: { seq: "asc" } });
    expect(notes.map((note) => (note.input as { member: string }).member)).toEqual(["skeptic", "reviewer", "skeptic", ""]);
    expect((notes[0]!.input as { text: string }).text).toBe("skeptic answers (keyword “漏洞”).");
  });

  it("asks the model router when no keyword matches, if the team has one", async () => {
    const { cookie } = await createUser();
    const created = await call(createTeam, "/api/teams", { cookie, body: { members: ["coder", "writer"], modelRouter: true, rules: [{ member: "writer", keywords: ["周报"] }] } });
    const sessionId = created.json.session.id as string;
    fake.script((request) => (systemOf(request).includes("You route a user's message") ? { text: "writer" } : { text: `${member(request)} here` }));
    expect((await sendChat(cookie, sessionId, "Something about our quarterly numbers")).text).toBe("writer here");
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain("- coder:");
    expect((await sendChat(cookie, sessionId, "写一份周报")).text).toBe("writer here");
    expect(fake.requests.filter((request) => systemOf(request).includes("You route a user's message"))).toHaveLength(1);
  });

  it("refuses unknown members and rules for someone outside the team", async () => {
    const { cookie } = await createUser();
    expect((await call(createTeam, "/api/teams", { cookie, body: { members: ["coder", "ghost"] } })).json.error.message).toContain('Unknown agent "ghost"');
    expect((await call(createTeam, "/api/teams", { cookie, body: { members: ["coder"], rules: [{ member: "writer", keywords: ["docs"] }] } })).status).toBe(400);
  });
});
