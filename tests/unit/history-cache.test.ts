import { afterEach, describe, expect, it, vi } from "vitest";
import type { TMessage } from "@/lib/providers/types";
import { forgetHistory, recallHistory, rememberHistory } from "@/lib/runs/history-cache";

/** The history cache of the run core: what the last run of a session ended with, used once. */
const userId = "user-history";
const conversation = (text: string): TMessage[] => [
  { role: "user", content: [{ type: "text", text }] },
  { role: "assistant", text: "answer", toolCalls: [] },
];

// lru-cache reads the clock with performance.now() and reuses a reading for 1 ms: after the clock
// is moved or put back, the next check waits that long.
const clockSettled = () => new Promise((resolve) => setTimeout(resolve, 5));

afterEach(async () => {
  vi.restoreAllMocks();
  await clockSettled();
});

describe("history cache", () => {
  it("gives the history back once, to the same user, when no step was written since", () => {
    const messages = conversation("hello");
    rememberHistory("session-a", { userId, lastStepId: "step-2", messages });
    messages.push({ role: "user", content: [{ type: "text", text: "changed after" }] });
    expect(recallHistory("session-a", { userId, previousStepId: "step-2" })).toEqual(conversation("hello"));
    expect(recallHistory("session-a", { userId, previousStepId: "step-2" })).toBeUndefined();
  });

  it("gives nothing when another step came in between, to another user, or after forgetting", () => {
    rememberHistory("session-b", { userId, lastStepId: "step-2", messages: conversation("hello") });
    expect(recallHistory("session-b", { userId, previousStepId: "step-3" })).toBeUndefined();
    // A mismatch drops the entry: the run reads the history from the database and remembers anew.
    expect(recallHistory("session-b", { userId, previousStepId: "step-2" })).toBeUndefined();
    rememberHistory("session-b", { userId, lastStepId: "step-2", messages: conversation("hello") });
    expect(recallHistory("session-b", { userId: "someone-else", previousStepId: "step-2" })).toBeUndefined();
    rememberHistory("session-b", { userId, lastStepId: "step-2", messages: conversation("hello") });
    forgetHistory("session-b");
    expect(recallHistory("session-b", { userId, previousStepId: "step-2" })).toBeUndefined();
  });

  it("does not hold a history over 200,000 characters, and drops the older one of that session", () => {
    rememberHistory("session-c", { userId, lastStepId: "step-2", messages: conversation("short") });
    rememberHistory("session-c", { userId, lastStepId: "step-4", messages: conversation("x".repeat(200_001)) });
    expect(recallHistory("session-c", { userId, previousStepId: "step-4" })).toBeUndefined();
    rememberHistory("session-c", { userId, lastStepId: "step-4", messages: conversation("x".repeat(199_000)) });
    expect(recallHistory("session-c", { userId, previousStepId: "step-4" })).toHaveLength(2);
  });

  it("remembers an empty history", () => {
    rememberHistory("session-d", { userId, lastStepId: "step-1", messages: [] });
    expect(recallHistory("session-d", { userId, previousStepId: "step-1" })).toEqual([]);
  });

  it("forgets a history after 15 minutes", async () => {
    const start = performance.now();
    const clock = vi.spyOn(performance, "now").mockReturnValue(start);
    rememberHistory("session-e", { userId, lastStepId: "step-2", messages: conversation("hello") });
    rememberHistory("session-f", { userId, lastStepId: "step-2", messages: conversation("hello") });
    clock.mockReturnValue(start + 15 * 60_000 - 1_000);
    await clockSettled();
    expect(recallHistory("session-e", { userId, previousStepId: "step-2" })).toHaveLength(2);
    clock.mockReturnValue(start + 15 * 60_000 + 1_000);
    await clockSettled();
    expect(recallHistory("session-f", { userId, previousStepId: "step-2" })).toBeUndefined();
  });

  it("holds at most 1,000 sessions, the least recently remembered going first", () => {
    for (let index = 0; index <= 1_000; index++) rememberHistory(`many-${index}`, { userId, lastStepId: "step", messages: conversation(`${index}`) });
    expect(recallHistory("many-0", { userId, previousStepId: "step" })).toBeUndefined();
    expect(recallHistory("many-1", { userId, previousStepId: "step" })).toHaveLength(2);
    expect(recallHistory("many-1000", { userId, previousStepId: "step" })).toHaveLength(2);
  });
});
