import { deliveryFolder } from "./run-profile";

/**
 * The part of a worker's system prompt that every agent shares: where its files go and the reply
 * contract of the seeds (status, summary_data, artifact_pointers). The task itself is the worker's
 * first message, verbatim.
 */
export function workerInstructions(options: { systemPrompt: string; taskKey: string; canDeliver: boolean }): string {
  const shared = deliveryFolder(options.taskKey);
  const files = options.canDeliver
    ? `Your workspace is a private scratch folder for this task (file tools and the shell start there). Submit finished files — code, reports, documents — with the deliver tool: they land in ${shared}/, which you can read (at that path) but not write otherwise. Large results belong in files, not in your reply.`
    : "Your workspace is a private scratch folder for this task.";
  return `${options.systemPrompt}

## How you work
You are a worker agent: another agent gave you one task. You see only that task, not its conversation, so everything you need is in it (or in the files it names). Work on it alone, then reply once. ${files}

## Your final reply
When you are done, reply with ONLY this JSON object and no other text:
{"status":"success","summary_data":{},"artifact_pointers":{}}
- status: "success", or "error" when you could not do the task (say why in summary_data).
- summary_data: decisions and metadata only — findings, scores, flags, assumptions, short answers. No long text.
- artifact_pointers: a name for each file that deliver confirmed ("delivered: <path>") → that path. Never invent a path; {} when you delivered nothing.
Never put a tool call and this reply in the same message.`;
}
