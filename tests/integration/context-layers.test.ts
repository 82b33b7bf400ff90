import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import { textOf, type TContentPart } from "@/lib/providers/types";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { rollbackSession } from "@/lib/sessions/rollback-session";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, newSession, sendChat, useFakeProvider } from "../support/chat";
import { createUser } from "../support/http";

/**
 * The context layers in a real run (issue 28): the chat route, the installed capabilities, the
 * real file tool and the HTTP fake LLM, whose request log shows what the model was sent.
 */
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

type TWireMessage = { role: string; content: string | { type: string; text?: string }[]; tool_call_id?: string };
const contentText = (message: TWireMessage | undefined) =>
  !message ? "" : typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join("");
const toolMessages = (request: number) => (fake.requests[request]!.body.messages as TWireMessage[]).filter((message) => message.role === "tool");

describe("context layers in a run", () => {
  it("offloads a big tool result: the model's next request holds the pointer, offload_recall returns a slice, the step keeps everything", async () => {
    const { cookie, user } = await createUser();
    const sessionId = await newSession(cookie);
    // 300 lines of 100 characters (30 KB): far over 10 KB, within view_file's 400 lines.
    const lines = Array.from({ length: 300 }, (_, index) => `${index === 0 ? "FIRST-MARKER" : index === 150 ? "MIDDLE-MARKER" : index === 299 ? "LAST-MARKER" : "row"} ${index} `.padEnd(100, "."));
    await sandboxRuntime(getBehaviourConfig()).workspaceFor(user.id, sessionId).writeText("big.txt", lines.join("\n"));

    const replies = [
      () => ({ toolCalls: [{ name: "view_file", arguments: { path: "big.txt" } }] }),
      (messages: TWireMessage[]) => {
        // The model follows the pointer it was given, to the middle of the file (line 151 of about 107 characters each).
        const pointer = contentText(messages.find((message) => message.role === "tool"));
        const id = /offload_recall \{"id":"([^"]+)"/.exec(pointer)?.[1] ?? "no pointer";
        return { toolCalls: [{ name: "offload_recall", arguments: { id, offset: 15_000, limit: 3_000 } }] };
      },
      () => ({ toolCalls: [{ name: "recall_masked", arguments: { id: "call_1" } }] }),
      () => ({ text: "Read it." }),
    ];
    let turn = 0;
    fake.script((request) => replies[turn++]!(request.body.messages as TWireMessage[]));
    const { text } = await sendChat(cookie, sessionId, "Read big.txt");
    expect(text).toBe("Read it.");
    expect(fake.requests).toHaveLength(4);

    // The second request: a pointer with the start and end, not the 30 KB.
    const [pointer] = toolMessages(1).map(contentText);
    expect(pointer).toMatch(/^\[Offloaded tool result: [\d,]+ characters \(about [\d,]+ tokens\)/);
    expect(pointer).toContain('offload_recall {"id":"call_1","offset":');
    expect(pointer).toContain("FIRST-MARKER");
    expect(pointer).toContain("LAST-MARKER");
    expect(pointer).not.toContain("MIDDLE-MARKER");
    expect(pointer!.length).toBeLessThan(3_000);

    // The third: the slice it asked for (the middle of the file), and the first result still a pointer.
    const third = toolMessages(2).map(contentText);
    expect(third[0]).toBe(pointer);
    expect(third[1]).toMatch(/^\[offload_recall call_1: characters \d+-\d+ of \d+; read on with offload_recall/);
    expect(third[1]).toContain("MIDDLE-MARKER");
    expect(third[1]!.length).toBeLessThan(3_300);

    // recall_masked of a result this big brings back the pointer, not the whole text; the recall is
    // never offloaded again.
    const fourth = toolMessages(3).map(contentText);
    expect(fourth[1]).toBe(third[1]);
    expect(fourth[2]).toMatch(/^\[recall_masked call_1: the result of view_file \{"path":"big.txt"\}/);
    expect(fourth[2]).toContain("[Offloaded tool result");

    // The steps keep the full result, and each model step records what the layers did.
    const steps = await db().step.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    const viewStep = steps.find((step) => step.name === "view_file")!;
    const stored = textOf((viewStep.output as { content: TContentPart[] }).content);
    for (const marker of ["FIRST-MARKER", "MIDDLE-MARKER", "LAST-MARKER"]) expect(stored).toContain(marker);
    expect(stored.length).toBeGreaterThan(30_000);
    const modelSteps = steps.filter((step) => step.type === "MODEL_CALL").map((step) => (step.output as { context?: Record<string, Record<string, unknown>> }).context);
    expect(modelSteps).toHaveLength(4);
    expect(modelSteps[0]).toMatchObject({ offload: { offloaded: 0, tokensSaved: 0 }, masking: { masked: 0 }, window: { tokenizer: "o200k_base", droppedTurns: 0 } });
    expect(modelSteps[1]).toMatchObject({ offload: { offloaded: 1 } });
    expect(modelSteps[1]!.offload!.tokensSaved as number).toBeGreaterThan(2_000);
    // What was sent grew by the pointer, not by the result.
    const growth = (modelSteps[1]!.window!.tokens as number) - (modelSteps[0]!.window!.tokens as number);
    expect(growth).toBeGreaterThan(0);
    expect(growth).toBeLessThan((modelSteps[1]!.offload!.tokensBefore as number) / 2);
  }, 60_000);

  it("applies a context_edit to every later request until its step is rolled back", async () => {
    const { cookie, user } = await createUser();
    const sessionId = await newSession(cookie);
    await sandboxRuntime(getBehaviourConfig()).workspaceFor(user.id, sessionId).writeText("a.md", "ORIGINAL-A content");
    fake.script([{ toolCalls: [{ name: "view_file", arguments: { path: "a.md" } }] }, { text: "A read." }]);
    await sendChat(cookie, sessionId, "read a");
    fake.script([{ text: "Noted." }]);
    await sendChat(cookie, sessionId, "and now?");
    fake.script([{ toolCalls: [{ name: "context_edit", arguments: { action: "replace_result", id: "call_1", note: "a.md holds the A content" } }] }, { text: "Tidied." }]);
    await sendChat(cookie, sessionId, "tidy up");
    expect(contentText(toolMessages(4).at(-1))).toMatch(/^Edited: the result of call_1 is replaced by your note/);
    // The request that made the edit still saw the result; the next one shows the note instead.
    expect(contentText(toolMessages(3)[0])).toContain("ORIGINAL-A content");
    expect(contentText(toolMessages(4)[0])).toBe("[This result was replaced by a note (context_edit): a.md holds the A content]");
    fake.script([{ text: "Still tidy." }]);
    await sendChat(cookie, sessionId, "again");
    expect(contentText(toolMessages(5)[0])).toContain("replaced by a note");

    // The edit is a step: rolling back its model call takes the edit back; the stored result was never touched.
    const editStep = (await db().step.findMany({ where: { sessionId, type: "MODEL_CALL" }, orderBy: { seq: "asc" } })).find((step) =>
      JSON.stringify(step.output).includes('"context_edit"'),
    )!;
    const model = (await db().step.findMany({ where: { sessionId, type: "MODEL_CALL" }, orderBy: { seq: "asc" } })).map((step) => (step.output as { context?: Record<string, Record<string, unknown>> }).context?.edits);
    expect(model.at(-1)).toMatchObject({ applied: 1 });
    await rollbackSession({ userId: user.id, sessionId, seq: editStep.seq });
    fake.script([{ text: "Back." }]);
    await sendChat(cookie, sessionId, "after the rollback");
    expect(fake.requests).toHaveLength(7);
    expect(contentText(toolMessages(6)[0])).toContain("ORIGINAL-A content");
  }, 90_000);

  it("answers a recall of an id this session does not have as an error, never another session's result", async () => {
    const { cookie, user } = await createUser();
    const other = await newSession(cookie);
    await sandboxRuntime(getBehaviourConfig()).workspaceFor(user.id, other).writeText("secret.txt", "SECRET ".repeat(3_000));
    fake.script([{ toolCalls: [{ name: "view_file", arguments: { path: "secret.txt" } }] }, { text: "ok" }]);
    await sendChat(cookie, other, "read");
    fake.reset();

    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "offload_recall", arguments: { id: "call_1" } }] }, { text: "nothing" }]);
    await sendChat(cookie, sessionId, "recall");
    const answer = contentText(toolMessages(1)[0]);
    expect(answer).toContain('No stored tool result with id "call_1" in this conversation');
    expect(answer).not.toContain("SECRET");
  }, 60_000);
});
