import { z } from "zod";
import { db } from "@/lib/db/client";
import type { AgentTask } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";
import { unifiedDiff } from "@/lib/tools/line-diff";
import { defineTool, type TToolContext } from "@/lib/tools/registry";
import type { TAgentCallKind } from "@/lib/wire/agents";
import { BUNDLED_PROFILES } from "./bundled-profiles";
import { deliverFile, deliveryPath } from "./deliveries";
import { callResult, runPipeline, startCall, timeoutFor, waitForTasks, type TWorkerSpec } from "./fan-out";
import { listAgents, unknownAgentMessage, type TAgentDefinition } from "./profiles";
import { workerProfileOf } from "./run-profile";
import { newTaskKey } from "./task-store";
import { sandboxRuntime } from "@/lib/sandbox/runtime";
import { withToolErrors } from "@/lib/tools/tool-errors";

/**
 * The tools of multi-agent work. The main agent gets delegate, debate, pipeline and agent_results;
 * a worker gets deliver (and the first four when its profile may delegate). Each worker is a
 * durable job with a session of its own (fan-out.ts); these tools shape input and output.
 * delegate and friends are "read" risk: they change nothing themselves, and every tool call a
 * worker makes goes through the owner's approval policy like the main agent's.
 */
export const DELEGATE_TOOLS = ["delegate", "debate", "pipeline", "agent_results"] as const;

const AGENT_NAMES = BUNDLED_PROFILES.map((profile) => profile.name).join(", ");
const ZAgentField = z.string().trim().min(1).max(40).describe(`An agent name: ${AGENT_NAMES}, or one of the user's own (an unknown name lists them all).`);
const ZTask = z.string().trim().min(1).max(50_000);


/** The agents a call names, or an error listing the available ones. */
async function resolveAll(userId: string, names: readonly string[]): Promise<TAgentDefinition[]> {
  const available = await listAgents(userId);
  return names.map((name) => {
    const agent = available.find((candidate) => candidate.name === name.trim().toLowerCase());
    if (!agent) throw new AppError("bad_request", unknownAgentMessage(name, available));
    return agent;
  });
}

const delegate = defineTool({
  name: "delegate",
  description:
    "Give one self-contained task to a worker agent and wait for its result. The worker sees only the task text (not this conversation), so include every fact, snippet and constraint it needs. Returns JSON {status, summary, artifact_pointers, session}: summary is its findings; artifact_pointers name files it delivered (read them with view_file when you need the content).",
  input: z.object({
    agent: ZAgentField,
    task: ZTask.describe("The complete task, self-contained."),
    timeout_s: z.int().min(1).max(86_400).optional().describe("Time limit in seconds (default: the agent's)."),
  }),
  risk: "read",
  execute: ({ agent, task, timeout_s }, context) =>
    withToolErrors(async () => {
      const [definition] = await resolveAll(context.userId, [agent]);
      const tasks = await startCall(context, "delegate", [{ agent: definition!, task, timeoutMs: timeoutFor(definition!, timeout_s), taskKey: newTaskKey() }]);
      return callResult("delegate", await waitForTasks(context, "delegate", tasks.map((row) => row.id)));
    }),
});

const debate = defineTool({
  name: "debate",
  description:
    "Ask 2–5 worker agents the same self-contained question in parallel, each from its own angle (e.g. coder, skeptic, optimizer), and get all their answers to weigh. Workers that fail or time out are marked; you get the others' answers anyway.",
  input: z.object({
    question: ZTask.describe("The question, self-contained."),
    agents: z.array(ZAgentField).min(2, "A debate needs at least 2 agents.").max(5, "A debate takes at most 5 agents."),
  }),
  risk: "read",
  execute: ({ question, agents }, context) =>
    withToolErrors(async () => {
      const definitions = await resolveAll(context.userId, agents);
      const specs: TWorkerSpec[] = definitions.map((agent) => ({ agent, task: question, timeoutMs: timeoutFor(agent, undefined), taskKey: newTaskKey() }));
      const tasks = await startCall(context, "debate", specs);
      return callResult("debate", await waitForTasks(context, "debate", tasks.map((row) => row.id)), { question });
    }),
});

const pipeline = defineTool({
  name: "pipeline",
  description:
    "Run 1–6 worker steps in order; in each step's task, {{input}} is replaced by the previous step's output (empty for the first; a long output arrives as a file to read). Stops at the first step that fails. Returns JSON {status, output, steps}.",
  input: z.object({
    steps: z
      .array(z.object({ agent: ZAgentField, task: ZTask.describe("The step's task; {{input}} is the previous step's output.") }))
      .min(1, "A pipeline has at least 1 step.")
      .max(6, "A pipeline has at most 6 steps."),
  }),
  risk: "read",
  execute: ({ steps }, context) =>
    withToolErrors(async () => {
      const definitions = await resolveAll(
        context.userId,
        steps.map((step) => step.agent),
      );
      // One folder for the whole pipeline: each step can read what the steps before it delivered.
      const taskKey = newTaskKey();
      const specs = steps.map((step, index) => ({ agent: definitions[index]!, task: step.task, timeoutMs: timeoutFor(definitions[index]!, undefined), taskKey }));
      const tasks = await startCall(context, "pipeline", specs);
      return callResult("pipeline", await runPipeline(context, tasks));
    }),
});

/** Calls of this session with workers, newest first (for agent_results and the resume note). */
export async function callsWithWorkers(userId: string, sessionId: string): Promise<{ toolCallId: string; kind: string; tasks: AgentTask[] }[]> {
  const rows = await db().agentTask.findMany({ where: { userId, parentSessionId: sessionId }, orderBy: [{ createdAt: "desc" }, { index: "asc" }], take: 200 });
  const calls = new Map<string, { toolCallId: string; kind: string; tasks: AgentTask[] }>();
  for (const row of rows) {
    const call = calls.get(row.toolCallId) ?? { toolCallId: row.toolCallId, kind: row.kind, tasks: [] };
    call.tasks.push(row);
    calls.set(row.toolCallId, call);
  }
  for (const call of calls.values()) call.tasks.sort((a, b) => a.index - b.index);
  return [...calls.values()];
}

const agentResults = defineTool({
  name: "agent_results",
  description:
    "Collect the workers of an earlier delegate, debate or pipeline call by its call id — after a restart interrupted it. Finished workers' results come back as they were (never re-run); unfinished ones are waited for (a pipeline goes on from its first unfinished step). Returns the same JSON as the original call.",
  input: z.object({ call_id: z.string().trim().min(1).max(200).describe("The tool call id of the interrupted delegate / debate / pipeline call.") }),
  risk: "read",
  execute: ({ call_id }, context) =>
    withToolErrors(async () => {
      const calls = await callsWithWorkers(context.userId, context.sessionId);
      const call = calls.find((candidate) => candidate.toolCallId === call_id);
      if (!call) {
        const known = calls.map((candidate) => `${candidate.kind} ${candidate.toolCallId}`).join(", ");
        throw new AppError("not_found", `No workers belong to call "${call_id}" in this chat.${known ? ` Calls with workers: ${known}.` : ""}`);
      }
      const kind = call.kind as TAgentCallKind;
      if (kind === "pipeline") return callResult("pipeline", await runPipeline(context, call.tasks));
      const done = await waitForTasks(context, kind, call.tasks.map((task) => task.id));
      return callResult(kind, done, kind === "debate" ? { question: call.tasks[0]?.task } : {});
    }),
});

/** The worker's own task, from its session's run profile (deliver is a worker's tool). */
async function workerTaskOf(context: TToolContext): Promise<{ taskId: string; folder: string }> {
  const folder = context.workspace?.shared;
  const session = folder ? await db().chatSession.findFirst({ where: { id: context.sessionId, userId: context.userId }, select: { runProfile: true } }) : null;
  const profile = workerProfileOf(session?.runProfile);
  if (!folder || !profile) throw new AppError("conflict", "Only workers deliver files. Write to your workspace with write_file instead.");
  return { taskId: profile.taskId, folder };
}

const deliver = defineTool({
  name: "deliver",
  description:
    "Submit a finished file (code, report, document) to your task's delivery folder; the answer is its path, which you list in artifact_pointers. path: a file name inside the folder, e.g. jwt.ts or docs/api.md. content: the whole file.",
  input: z.object({ path: z.string().trim().min(1).max(1_024), content: z.string().max(10_000_000) }),
  risk: "write",
  preview: async ({ path, content }, context) => {
    const folder = context.workspace?.shared ?? "shared/?";
    let shown = path;
    let before: string | undefined;
    try {
      const relative = deliveryPath(path, folder);
      shown = `${folder}/${relative}`;
      before = context.workspace?.shared ? await sandboxRuntime().folderFor(context.userId, folder).readTextIfExists(relative).catch(() => undefined) : undefined;
    } catch {
      // The call will be refused with the reason; the card shows what was asked.
    }
    return { title: `Deliver ${shown}`, path: shown, diff: unifiedDiff(before ?? "", content, { path: shown }) };
  },
  execute: ({ path, content }, context) =>
    withToolErrors(async () => {
      const { taskId, folder } = await workerTaskOf(context);
      return `delivered: ${await deliverFile({ userId: context.userId, taskId, folder, path, content })}`;
    }),
});

export const agentTools = { delegate, debate, pipeline, agentResults, deliver };
export const MAIN_AGENT_TOOLS = [delegate, debate, pipeline, agentResults];
