import type { TRunAnswer } from "@/lib/runs/run-answer";

/**
 * What a chat gets when a run ends: the answer, or what it waits for. Approvals are never decided
 * in a chat (anyone who can read a group, or a stolen chat account, could approve): the reply
 * names the tool and links to the card in the web chat, where the owner decides.
 */
function withNote(text: string, note: string): string {
  return text ? `${text}\n\n${note}` : note;
}

export function answerText(answer: TRunAnswer, link: string): string {
  switch (answer.status) {
    case "completed":
      return answer.stepLimit ? withNote(answer.text, "(Stopped at the step limit.)") : answer.text || "Done.";
    case "paused":
      return withNote(answer.text, `Waiting for your approval to run ${answer.approval.toolName}. Approvals are decided in xclaw, not in this chat: ${link}`);
    case "stopped":
      // After /stop the chat was already told; only a partial answer is still worth sending.
      return answer.text ? withNote(answer.text, `(${answer.reason}.)`) : "";
    case "failed":
      return withNote(answer.text, `That did not work: ${answer.reason.replace(/\.$/, "")}. The conversation is in xclaw: ${link}`);
    case "running":
      return "";
  }
}
