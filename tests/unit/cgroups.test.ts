import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectCgroups, prepareCgroupDelegation } from "@/lib/sandbox/cgroups";

/**
 * Which cgroup v2 group the sandbox may use. This machine has cgroup v1 controllers (the real ones
 * are exercised by sandbox.test.ts), so v2 is described here by a made-up tree: a directory that
 * stands in for the cgroup2 mount, with the control files the kernel would show.
 */
let mount: string;
const appUser = 1_000;

async function group(relative: string, files: Record<string, string>): Promise<string> {
  const directory = path.join(mount, relative);
  await fs.mkdir(directory, { recursive: true });
  for (const [name, content] of Object.entries(files)) await fs.writeFile(path.join(directory, name), content);
  return directory;
}

function system(ownGroup: string, uid = appUser) {
  return { mountinfo: `30 25 0:26 / ${mount} rw,nosuid,nodev - cgroup2 cgroup2 rw\n`, cgroup: `0::${ownGroup}\n`, uid };
}

beforeEach(async () => {
  mount = await fs.mkdtemp(path.join(os.tmpdir(), "xclaw-cgroup2-"));
});
afterEach(async () => {
  await fs.rm(mount, { recursive: true, force: true });
});

describe("detectCgroups on cgroup v2", () => {
  it("does not touch a group that is not delegated to the app, and says why", async () => {
    const service = await group("system.slice/xclaw.service", { "cgroup.controllers": "cpu memory pids", "cgroup.subtree_control": "", "cgroup.procs": "" });
    await group("system.slice/xclaw.service/app", { "cgroup.procs": "4242" });
    // Owned by root, as systemd leaves a unit without Delegate=.
    const detection = detectCgroups(system("/system.slice/xclaw.service/app"));
    expect(detection.manager).toBeUndefined();
    expect(detection.reason).toMatch(/cgroup v2: no cgroup v2 group is delegated to the app/);
    expect(detection.reason).toMatch(/cgroup v1: no cgroup v1 memory controller/);
    expect(await fs.readFile(path.join(service, "cgroup.subtree_control"), "utf8")).toBe("");
    expect(await fs.readdir(service)).not.toContain("xclaw-sandboxes");
  });

  it("leaves the root group alone", async () => {
    await group("", { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "", "cgroup.procs": "1" });
    expect(detectCgroups(system("/", 0)).reason).toMatch(/cgroup v2: the app is in the root cgroup; set XCLAW_SANDBOX_CGROUP/);
    expect(await fs.readFile(path.join(mount, "cgroup.subtree_control"), "utf8")).toBe("");
  });

  it("uses the group the launcher prepared, and makes each command a group with its limits", async () => {
    const service = await group("system.slice/xclaw.service", { "cgroup.controllers": "cpu memory pids", "cgroup.subtree_control": "", "cgroup.procs": "" });
    await group("system.slice/xclaw.service/app", { "cgroup.procs": "4242" });
    const sandboxes = await group("system.slice/xclaw.service/xclaw-sandboxes", { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "" });
    // Left behind by an app process that no longer exists.
    await fs.mkdir(path.join(sandboxes, "cmd-2147483646-dead"));

    const detection = detectCgroups(system("/system.slice/xclaw.service/app", 0));
    expect(detection.reason).toBeUndefined();
    expect(detection.manager).toMatchObject({ version: "v2", location: sandboxes });
    expect(await fs.readFile(path.join(service, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids");
    expect(await fs.readFile(path.join(sandboxes, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids");
    expect(await fs.readdir(sandboxes)).not.toContain("cmd-2147483646-dead");

    const command = await detection.manager!.create({ memoryBytes: 256 * 1024 * 1024, maxProcesses: 64 });
    await command.join(31337);
    const [name] = (await fs.readdir(sandboxes)).filter((entry) => entry.startsWith("cmd-"));
    const read = (file: string) => fs.readFile(path.join(sandboxes, name!, file), "utf8");
    expect([await read("memory.max"), await read("memory.swap.max"), await read("pids.max"), await read("cgroup.procs")]).toEqual([String(256 * 1024 * 1024), "0", "64", "31337"]);
  });

  it.skipIf(process.getuid?.() !== 0)("takes a parent group owned by the app's (unprivileged) user, as with systemd's DelegateSubgroup=app", async () => {
    const service = await group("user.slice/xclaw.service", { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "memory pids", "cgroup.procs": "" });
    await group("user.slice/xclaw.service/app", { "cgroup.procs": "4242" });
    await fs.chown(service, appUser, appUser);
    expect(detectCgroups(system("/user.slice/xclaw.service/app", 4_321)).reason).toMatch(/no cgroup v2 group is delegated to the app/);
    // Owned: it goes ahead and makes xclaw-sandboxes. (In this made-up tree the new group lacks the
    // control files the kernel would create, which is where it stops.)
    const owned = detectCgroups(system("/user.slice/xclaw.service/app", appUser));
    expect(owned.reason).toMatch(/cgroup v2: cannot manage cgroups in \S+\/user\.slice\/xclaw\.service \(ENOENT\)/);
    expect(await fs.readdir(service)).toContain("xclaw-sandboxes");
  });
});

describe("prepareCgroupDelegation (the launcher, cgroup v2)", () => {
  it("moves a delegated service's processes into app/ and prepares xclaw-sandboxes/", async () => {
    const service = await group("system.slice/xclaw.service", { "cgroup.controllers": "cpu memory pids", "cgroup.subtree_control": "", "cgroup.procs": "4242\n4243\n" });
    // Control files the kernel would create in the new groups.
    await group("system.slice/xclaw.service/xclaw-sandboxes", { "cgroup.subtree_control": "" });
    const message = prepareCgroupDelegation(system("/system.slice/xclaw.service", process.getuid!()));
    expect(message).toBe(`moved the app into ${service}/app so that command cgroups can be made in ${service}/xclaw-sandboxes`);
    // The made-up file keeps the last write; the kernel would list both processes.
    expect(await fs.readFile(path.join(service, "app", "cgroup.procs"), "utf8")).toBe("4243");
    expect(await fs.readFile(path.join(service, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids");
    expect(await fs.readFile(path.join(service, "xclaw-sandboxes", "cgroup.subtree_control"), "utf8")).toBe("+memory +pids");
  });

  it("leaves a login session or terminal scope alone, and a group owned by someone else", async () => {
    const scope = await group("user.slice/user-1000.slice/session-3.scope", { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "", "cgroup.procs": "777\n" });
    expect(prepareCgroupDelegation(system("/user.slice/user-1000.slice/session-3.scope", process.getuid!()))).toBeUndefined();
    expect(await fs.readdir(scope)).not.toContain("app");
    const service = await group("system.slice/other.service", { "cgroup.controllers": "memory pids", "cgroup.subtree_control": "", "cgroup.procs": "888\n" });
    expect(prepareCgroupDelegation(system("/system.slice/other.service", 4_321))).toBeUndefined();
    expect(await fs.readdir(service)).not.toContain("app");
  });
});
