import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { ChatSession } from "@/lib/db/generated/client";
import { createLogger } from "@/lib/observability/logger";
import { configuredProviders, providersForChoice } from "@/lib/providers/registry";
import { getSessionOrThrow } from "./sessions";
import { decodeStep } from "./step-codecs";
import { listSteps } from "./steps";
import { plainTitle } from "./titles";

/**
 * After the first reply, the model names the chat in a few words (the first message, cut at 60
 * characters, is only the stand-in). Done once: only while the title is still that stand-in and
 * the owner has not renamed the chat. The call is not part of the conversation (no step is
 * written) and a failure leaves the stand-in; the web chat asks for it when its first run ends.
 */
const log = createLogger("titles");

const TITLE_INSTRUCTION =
  "You name chat conversations. Answer with a short title of two to six words that says what the conversation is about, in the language of the user's message. Plain words only: no quotes, no markdown, no full stop at the end.";

const EXCERPT_CHARACTERS = 1_500;
const TIMEOUT_MS = 20_000;

export async function summarizeTitle(options: { userId: string; sessionId: string }): Promise<ChatSession> {
  const session = await getSessionOrThrow(options);
  if (!getBehaviourConfig().chat.summarizeTitles || session.titleEdited || session.status === "RUNNING") return session;
  const steps = (await listSteps({ sessionId: session.id, userId: options.userId })).map(decodeStep);
  const firstMessage = steps.find((entry) => entry.kind === "user");
  const firstReply = steps.find((entry) => entry.kind === "model" && entry.step.status === "COMPLETED" && entry.output?.text.trim());
  if (firstMessage?.kind !== "user" || firstReply?.kind !== "model" || !firstReply.output) return session;
  const standIns = new Set(["New chat", plainTitle(firstMessage.input.text)]);
  if (!standIns.has(session.title)) return session;

  const [provider] = providersForChoice(configuredProviders(), session.model);
  if (!provider) return session;
  let answer = "";
  try {
    const events = provider.stream({
      system: TITLE_INSTRUCTION,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "text",
              text: `The user wrote:\n${firstMessage.input.text.slice(0, EXCERPT_CHARACTERS)}\n\nThe assistant answered:\n${firstReply.output.text.slice(0, EXCERPT_CHARACTERS)}\n\nTitle:`,
            },
          ],
        },
      ],
      tools: [],
      maxOutputTokens: 24,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    for await (const event of events) if (event.type === "text-delta") answer += event.text;
  } catch (error) {
    log.warn("could not summarise a chat title", { sessionId: session.id, error: (error as Error).message });
    return session;
  }
  // One line, without the quotes or a "Title:" prefix some models add anyway.
  const line = answer.split("\n").find((text) => text.trim()) ?? "";
  const title = plainTitle(line.replace(/^\s*title\s*:\s*/i, "").replace(/^["'“”‘’]+|["'“”‘’.]+$/g, ""));
  if (!title) return session;
  // Only if nobody renamed it meanwhile; the chat keeps its place in the list.
  await db().chatSession.updateMany({ where: { id: session.id, title: session.title, titleEdited: false }, data: { title, updatedAt: session.updatedAt } });
  return getSessionOrThrow(options);
}
