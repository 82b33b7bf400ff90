import { expect, test } from "@playwright/test";
import { adminPage } from "./helpers";

// Starting or stopping a plugin's process and running a job take seconds on a busy machine.
test.describe.configure({ timeout: 120_000 });
const SLOW = { timeout: 30_000 };

/**
 * The admin pages no other spec walks through, built on the shared admin table and extension list:
 * job runs (a cron job run by hand shows up as a run with its details), every user's schedules
 * (pause all), and the plugins list (Disable / Enable, a plugin's details).
 */
test("admin jobs: a cron job run by hand shows up with its details; every schedule pauses at once", async ({ browser }) => {
  const { context, page } = await adminPage(browser, "admin-jobs");
  await page.goto("/admin/jobs");
  const catalog = page.locator("#jobs");
  const runNow = catalog.getByRole("button", { name: /^Run .+ now$/ }).first();
  const jobId = (await runNow.getAttribute("aria-label"))!.replace(/^Run /, "").replace(/ now$/, "");
  await runNow.click();
  await expect(catalog.getByRole("status")).toHaveText(`${jobId} is queued; it shows up under Runs.`, SLOW);

  const runs = page.getByRole("table", { name: "Job runs, newest first" });
  const row = runs.getByRole("row").filter({ hasText: jobId }).first();
  await expect(row).toBeVisible(SLOW);
  await row.getByRole("button", { name: `Show details of ${jobId} run` }).click();
  await expect(runs.getByText("Event", { exact: true })).toBeVisible();
  await expect(runs.getByRole("heading", { name: "Steps" })).toBeVisible();

  const schedules = page.locator("#scheduled-jobs");
  await schedules.getByRole("button", { name: "Pause all schedules" }).click();
  await expect(schedules.getByRole("button", { name: "Resume all schedules" })).toHaveAttribute("aria-pressed", "true");
  await expect(schedules).toContainText("All schedules are paused");
  await page.reload();
  await expect(schedules.getByRole("button", { name: "Resume all schedules" })).toBeVisible();
  await schedules.getByRole("button", { name: "Resume all schedules" }).click();
  await expect(schedules.getByRole("button", { name: "Pause all schedules" })).toHaveAttribute("aria-pressed", "false");
  await context.close();
});

test("admin plugins: a bundled plugin is switched off and on again, and its details open", async ({ browser }) => {
  const { context, page } = await adminPage(browser, "admin-plugins");
  await page.goto("/admin/plugins");
  const plugin = page.getByRole("list", { name: "Plugins" }).getByTestId("plugin-weather");
  await expect(plugin).toBeVisible();
  const first = (await plugin.getByRole("button", { name: /^(Disable|Enable) / }).textContent())!.trim();
  const second = first === "Disable" ? "Enable" : "Disable";
  await plugin.getByRole("button", { name: /^(Disable|Enable) / }).click();
  await expect(plugin.getByRole("button", { name: new RegExp(`^${second} `) })).toBeVisible(SLOW);
  await page.reload();
  await expect(plugin.getByRole("button", { name: new RegExp(`^${second} `) })).toBeVisible();
  await plugin.getByRole("button", { name: new RegExp(`^${second} `) }).click();
  await expect(plugin.getByRole("button", { name: new RegExp(`^${first} `) })).toBeVisible(SLOW);

  await plugin.getByText("Permissions, settings and versions").click();
  await expect(plugin.getByRole("heading", { name: "What it may do" })).toBeVisible();
  await expect(plugin.getByRole("heading", { name: "Uploaded versions" })).toBeVisible(SLOW);
  await expect(plugin).toContainText("None: this plugin comes with xclaw.");
  await context.close();
});
