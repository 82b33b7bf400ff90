import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as getJobRoute, PATCH as patchJob, DELETE as deleteJobRoute } from "@/app/api/jobs/[id]/route";
import { POST as runJobRoute } from "@/app/api/jobs/[id]/run/route";
import { GET as jobRunsRoute } from "@/app/api/jobs/[id]/runs/route";
import { POST as previewRoute } from "@/app/api/jobs/preview/route";
import { GET as listJobsRoute, POST as createJobRoute } from "@/app/api/jobs/route";
import { GET as listNotificationsRoute } from "@/app/api/notifications/route";
import { GET as listSessionsRoute } from "@/app/api/sessions/route";
import { scanSecretsTool } from "@/lib/chronos/scan-secrets-tool";
import { STEP_LIMIT_NOTICE } from "@/lib/chronos/prompts";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { db } from "@/lib/db/client";
import type { TJobRunner } from "@/lib/jobs/job-runner";
import { waitForRun } from "@/lib/runs/local-runs";
import { workspaceRoot } from "@/lib/sandbox/runtime";
import { startFakeLlm, type TFakeLlm } from "../fake-llm/server";
import { clearProviderEnvironment, decideResponse, newSession, sendChat, useFakeProvider } from "../support/chat";
import { startChronosRunner, writeChronosConfig, waitForExecution } from "../support/chronos";
import { call, createUser } from "../support/http";

/**
 * Scheduled jobs through the API and real runs: validation with reasons, tenancy, "run now", and
 * CHRONOS MODE outcomes with the scripted model — silent, notified, step limit, a call that would
 * need approval denied and recorded, the time limit — plus the cron_manage and scan_secrets tools.
 */
writeChronosConfig({ "chronos.maxJobsPerUser": 4, "chronos.maxTimeoutSeconds": 600 });

let fake: TFakeLlm;
let runner: TJobRunner;

beforeAll(async () => {
  fake = await startFakeLlm();
  runner = await startChronosRunner();
});
afterAll(async () => {
  await runner.stop({ graceMs: 1_000 });
  await fake.close();
});
beforeEach(() => useFakeProvider(fake));
afterEach(() => {
  fake.reset();
  clearProviderEnvironment();
});

type TUser = Awaited<ReturnType<typeof createUser>>;

async function createJob(user: TUser, body: Record<string, unknown>) {
  return call(createJobRoute, "/api/jobs", { cookie: user.cookie, body: { name: "Disk check", schedule: { everyMinutes: 30 }, prompt: "Check the disks.", ...body } });
}

async function runNow(user: TUser, jobId: string) {
  const response = await call(runJobRoute, `/api/jobs/${jobId}/run`, { cookie: user.cookie, method: "POST", params: { id: jobId } });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
  return response.json as { executionId: string; sessionId: string };
}

function toolNames(request: { body: { tools?: { function: { name: string } }[] } }): string[] {
  return (request.body.tools ?? []).map((tool) => tool.function.name).sort();
}

describe("scheduled jobs API", () => {
  it("reads the test's xclaw.yaml", () => {
    expect(getBehaviourConfig().chronos.maxJobsPerUser).toBe(4);
  });

  it("creates a job with defaults: read-only tools plus notify, 15 steps, 300 s, next run planned", async () => {
    const user = await createUser();
    const created = await createJob(user, {});
    expect(created.status).toBe(201);
    const { job } = created.json;
    expect(job).toMatchObject({ name: "Disk check", schedule: { everyMinutes: 30 }, scheduleText: "every 30 minutes", maxSteps: 15, timeoutSeconds: 300, enabled: true, running: false, lastStatus: null });
    expect(job.tools).toContain("notify");
    expect(job.tools).toContain("list_dir");
    expect(job.tools).toContain("scan_secrets");
    for (const tool of ["write_file", "edit_file", "cron_manage"]) expect(job.tools).not.toContain(tool);
    expect(new Date(job.nextRunAt).getTime()).toBeGreaterThan(Date.now());
    const listed = await call(listJobsRoute, "/api/jobs", { cookie: user.cookie });
    expect(listed.json.jobs.map((entry: { id: string }) => entry.id)).toEqual([job.id]);
  });

  it.each([
    [{ schedule: { cron: "*/10 * * * * *", tz: "UTC" } }, /seconds are not supported/],
    [{ schedule: { cron: "*/0 * * * *", tz: "UTC" } }, /step of 0/],
    [{ schedule: { cron: "@reboot", tz: "UTC" } }, /@reboot is not a schedule/],
    [{ schedule: { cron: "0 3 * * *", tz: "Nowhere/Land" } }, /not a time zone/],
    [{ schedule: { everyMinutes: 2 } }, /too often; the shortest interval allowed is 5 minutes/],
    [{ schedule: { daily: true } }, /schedule must be/],
    [{ tools: ["cron_manage"] }, /cron_manage cannot be used by a scheduled job/],
    [{ tools: ["no_such_tool"] }, /Unknown tool "no_such_tool"/],
    [{ maxSteps: 500 }, /maxSteps can be at most 30/],
    [{ timeoutSeconds: 5 }, /timeoutSeconds must be at least 10/],
    [{ prompt: "" }, /Write what the job should do/],
    [{ channels: ["3a0f0f3e-5d5e-4c39-9b50-5a0d6a1c0001"] }, /No such notification channel/],
    [{ surprise: 1 }, /Unknown field: surprise/],
  ])("refuses %j with a reason", async (body, message) => {
    const user = await createUser();
    const response = await createJob(user, body);
    expect(response.status).toBe(400);
    expect(response.json.error.message).toMatch(message);
  });

  it("limits jobs per user (chronos.maxJobsPerUser)", async () => {
    const user = await createUser();
    for (let index = 0; index < 4; index++) expect((await createJob(user, { name: `job ${index}` })).status).toBe(201);
    const fifth = await createJob(user, { name: "one too many" });
    expect(fifth.status).toBe(409);
    expect(fifth.json.error.message).toMatch(/already have 4 jobs/);
  });

  it("previews the next five runs and explains a refusal", async () => {
    const user = await createUser();
    const preview = await call(previewRoute, "/api/jobs/preview", { cookie: user.cookie, body: { schedule: { cron: "0 9 * * 1-5", tz: "Europe/Berlin" } } });
    expect(preview.status).toBe(200);
    expect(preview.json.nextRuns).toHaveLength(5);
    expect(preview.json.scheduleText).toBe("cron 0 9 * * 1-5 (Europe/Berlin)");
    for (const run of preview.json.nextRuns as string[]) expect(new Date(run).getUTCDay()).toBeGreaterThanOrEqual(1);
    const refused = await call(previewRoute, "/api/jobs/preview", { cookie: user.cookie, body: { schedule: { cron: "* * * * *", tz: "UTC" } } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/shortest interval allowed is 5 minutes/);
  });

  it("changes, pauses and resumes a job; a paused job has no next run", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, {})).json;
    const patch = (body: unknown) => call(patchJob, `/api/jobs/${job.id}`, { cookie: user.cookie, method: "PATCH", body, params: { id: job.id } });
    const paused = await patch({ enabled: false });
    expect(paused.json.job).toMatchObject({ enabled: false, nextRunAt: null });
    const changed = await patch({ enabled: true, schedule: { cron: "15 4 * * *", tz: "Asia/Shanghai" }, maxSteps: 5 });
    expect(changed.json.job).toMatchObject({ enabled: true, maxSteps: 5, scheduleText: "cron 15 4 * * * (Asia/Shanghai)" });
    expect(new Date(changed.json.job.nextRunAt).getUTCHours()).toBe(20);
  });

  it("answers 404 for another user's job, whatever the method", async () => {
    const owner = await createUser();
    const other = await createUser();
    const { job } = (await createJob(owner, {})).json;
    const params = { id: job.id };
    expect((await call(getJobRoute, `/api/jobs/${job.id}`, { cookie: other.cookie, params })).status).toBe(404);
    expect((await call(patchJob, `/api/jobs/${job.id}`, { cookie: other.cookie, method: "PATCH", body: { enabled: false }, params })).status).toBe(404);
    expect((await call(runJobRoute, `/api/jobs/${job.id}/run`, { cookie: other.cookie, method: "POST", params })).status).toBe(404);
    expect((await call(jobRunsRoute, `/api/jobs/${job.id}/runs`, { cookie: other.cookie, params })).status).toBe(404);
    expect((await call(deleteJobRoute, `/api/jobs/${job.id}`, { cookie: other.cookie, method: "DELETE", params })).status).toBe(404);
    expect((await call(listJobsRoute, "/api/jobs", { cookie: other.cookie })).json.jobs).toEqual([]);
    expect((await db().chronosJob.findUniqueOrThrow({ where: { id: job.id } })).enabled).toBe(true);
    expect((await call(getJobRoute, `/api/jobs/not-a-uuid`, { cookie: owner.cookie, params: { id: "not-a-uuid" } })).status).toBe(404);
  });
});

describe("CHRONOS MODE runs", () => {
  it("ends SILENT when the run finds nothing to report; the session (trigger job) holds the trace", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, {})).json;
    fake.script([{ text: "All disks are below 70%." }]);
    const { executionId, sessionId } = await runNow(user, job.id);
    const execution = await waitForExecution(executionId);
    expect(execution).toMatchObject({ status: "SILENT", statusReason: "All disks are below 70%.", sessionId, trigger: "MANUAL", notifications: 0 });
    const system = fake.requests[0]!.body.messages[0].content as string;
    expect(system).toContain("CHRONOS MODE");
    expect(system).toContain("at most 15 steps");
    expect(fake.requests[0]!.body.messages.at(-1).content).toContain("Check the disks.");
    // The job's tools only: read-only ones and notify.
    expect(toolNames(fake.requests[0]!)).toEqual([...job.tools].sort());
    const sessions = await call(listSessionsRoute, "/api/sessions", { cookie: user.cookie });
    expect(sessions.json.sessions.find((session: { id: string }) => session.id === sessionId)).toMatchObject({ trigger: "job", status: "success" });
    const history = await call(jobRunsRoute, `/api/jobs/${job.id}/runs`, { cookie: user.cookie, params: { id: job.id } });
    expect(history.json.runs).toEqual([expect.objectContaining({ id: executionId, status: "silent", trigger: "manual", sessionId })]);
    const refreshed = (await call(getJobRoute, `/api/jobs/${job.id}`, { cookie: user.cookie, params: { id: job.id } })).json.job;
    expect(refreshed).toMatchObject({ lastStatus: "silent", running: false });
    expect((await call(listNotificationsRoute, "/api/notifications", { cookie: user.cookie })).json.notifications).toEqual([]);
  });

  it("ends NOTIFIED when the run calls notify; the notification links to the session", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, {})).json;
    fake.script([{ toolCalls: [{ name: "notify", arguments: { title: "Disk /var 93% full", message: "db-1: /var at 93%. Rotate logs.", level: "CRITICAL" } }] }, { text: "Reported the full disk." }]);
    const { executionId, sessionId } = await runNow(user, job.id);
    const execution = await waitForExecution(executionId);
    expect(execution).toMatchObject({ status: "NOTIFIED", notifications: 1 });
    const { notifications, unread } = (await call(listNotificationsRoute, "/api/notifications", { cookie: user.cookie })).json;
    expect(unread).toBe(1);
    expect(notifications).toEqual([expect.objectContaining({ level: "critical", title: "Disk /var 93% full", message: "db-1: /var at 93%. Rotate logs.", sessionId, source: "job Disk check", readAt: null })]);
    // notify ran without asking: the session allows it, nobody was there to approve.
    expect(await db().approval.count({ where: { sessionId } })).toBe(0);
  });

  it("stops at the step limit with 'step limit reached, job stopped'", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, { maxSteps: 2 })).json;
    fake.script([
      { toolCalls: [{ name: "calculator", arguments: { expression: "1+1" } }] },
      { toolCalls: [{ name: "calculator", arguments: { expression: "2+2" } }] },
      { text: "never asked for" },
    ]);
    const { executionId, sessionId } = await runNow(user, job.id);
    const execution = await waitForExecution(executionId);
    expect(execution).toMatchObject({ status: "FAILED", statusReason: STEP_LIMIT_NOTICE });
    expect(fake.requests).toHaveLength(2);
    const notes = await db().step.findMany({ where: { sessionId, type: "SYSTEM_NOTE" } });
    expect(JSON.stringify(notes.map((note) => note.input))).toContain(STEP_LIMIT_NOTICE);
  });

  it("denies and records a call that would need approval, and never asks", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, { tools: ["list_dir", "write_file"] })).json;
    expect(job.tools).toEqual(["list_dir", "write_file", "notify"]);
    fake.script([{ toolCalls: [{ name: "write_file", arguments: { path: "report.md", content: "x" } }] }, { text: "I could not write the report." }]);
    const { executionId, sessionId } = await runNow(user, job.id);
    const execution = await waitForExecution(executionId);
    expect(execution.status).toBe("SILENT");
    const step = await db().step.findFirstOrThrow({ where: { sessionId, type: "TOOL_CALL", name: "write_file" } });
    expect(step.status).toBe("FAILED");
    expect(JSON.stringify(step.output)).toMatch(/needs a person's approval, and this job run has nobody to ask/);
    expect(await db().approval.count({ where: { sessionId } })).toBe(0);
    expect(await stat(path.join(workspaceRoot(user.user.id), "report.md")).then(() => true, () => false)).toBe(false);
    expect((await db().chatSession.findUniqueOrThrow({ where: { id: sessionId } })).status).toBe("SUCCESS");
  });

  it("records TIMEOUT when the run passes the job's time limit", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, { timeoutSeconds: 10 })).json;
    fake.script([{ hang: true }]);
    const { executionId } = await runNow(user, job.id);
    const execution = await waitForExecution(executionId);
    expect(execution).toMatchObject({ status: "TIMEOUT", statusReason: "Stopped at the time limit (10 s)." });
  });

  it("refuses 'run now' while the job is running (409), and runs again once it has finished", async () => {
    const user = await createUser();
    const { job } = (await createJob(user, {})).json;
    fake.script([{ text: "slow but fine", delayMs: 1_500 }, { text: "fine again" }]);
    const first = await runNow(user, job.id);
    const second = await call(runJobRoute, `/api/jobs/${job.id}/run`, { cookie: user.cookie, method: "POST", params: { id: job.id } });
    expect(second.status).toBe(409);
    expect(second.json.error.message).toMatch(/already running/);
    await waitForExecution(first.executionId);
    const third = await runNow(user, job.id);
    expect((await waitForExecution(third.executionId)).status).toBe("SILENT");
    expect(await db().chronosExecution.count({ where: { jobId: job.id } })).toBe(2);
  });
});

describe("cron_manage", () => {
  it("lists without asking, and asks before adding a job", async () => {
    const { user, cookie } = await createUser();
    const sessionId = await newSession(cookie);
    fake.script([{ toolCalls: [{ name: "cron_manage", arguments: { action: "list" } }] }, { text: "You have none." }]);
    await sendChat(cookie, sessionId, "what jobs do I have?");
    await waitForRun(sessionId);
    const listStep = await db().step.findFirstOrThrow({ where: { sessionId, type: "TOOL_CALL", name: "cron_manage" } });
    expect(listStep.status).toBe("COMPLETED");
    expect(JSON.stringify(listStep.output)).toContain("No scheduled jobs yet.");

    fake.script([
      { toolCalls: [{ name: "cron_manage", arguments: { action: "add", job: { name: "Morning check", schedule: { cron: "0 8 * * *", tz: "UTC" }, prompt: "Look at the error log." } } }] },
    ]);
    const { chunks } = await sendChat(cookie, sessionId, "check the error log every morning");
    await waitForRun(sessionId);
    const approval = chunks.find((chunk) => chunk.type === "data-approval")!.data as { approvalId: string; preview: { title: string } };
    expect(approval.preview.title).toBe('Create the scheduled job "Morning check"');
    expect(await db().chronosJob.count({ where: { userId: user.id } })).toBe(0);
    fake.script([{ text: "Scheduled." }]);
    await (await decideResponse(cookie, sessionId, approval.approvalId, { decision: "approve" })).text();
    await waitForRun(sessionId);
    const created = await db().chronosJob.findFirstOrThrow({ where: { userId: user.id } });
    expect(created).toMatchObject({ name: "Morning check", cron: "0 8 * * *", timezone: "UTC", enabled: true });
    expect(created.tools).toContain("notify");
  });
});

describe("scan_secrets", () => {
  it("reports CLEAN or FOUND with masked values, inside the workspace only", async () => {
    const { user } = await createUser();
    const root = workspaceRoot(user.id);
    await mkdir(path.join(root, "app"), { recursive: true });
    const context = { userId: user.id, sessionId: "00000000-0000-4000-8000-000000000000", stepId: "", signal: new AbortController().signal, progress: () => {} };
    await writeFile(path.join(root, "app", "notes.md"), "nothing secret\n");
    expect(String(await scanSecretsTool.execute({}, context))).toMatch(/^CLEAN\n1 file scanned in the workspace/);
    await writeFile(path.join(root, ".env"), "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n");
    await writeFile(path.join(root, "app", "config.ts"), 'export const db = "x";\nconst password = "correct-horse-battery";\n');
    const report = String(await scanSecretsTool.execute({}, context));
    expect(report.split("\n")[0]).toBe("FOUND");
    expect(report).toContain(".env:1  [OpenAI key]  sk-p…");
    expect(report).toContain("app/config.ts:2  [Generic secret]  pass…");
    expect(report).not.toContain("abcdefghijklmnop");
    expect(report).not.toContain("correct-horse");
    expect(String(await scanSecretsTool.execute({ path: "app/notes.md" }, context))).toMatch(/^CLEAN/);
    const outside = await scanSecretsTool.execute({ path: "../" }, context);
    expect(JSON.stringify(outside)).toMatch(/outside your workspace/);
  });
});
