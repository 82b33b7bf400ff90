import { expect, test } from "@playwright/test";
import { signUp, uniqueEmail } from "./helpers";

// A scheduled job made in the UI, run now: the scripted model notifies, the bell shows it, and
// the notification opens the run's trace.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

async function scriptModel(replies: unknown[]) {
  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, { method: "POST", body: JSON.stringify({ replies }) });
}

test("create a job, run it now, see the notification in the bell and open its trace @database", async ({ page }) => {
  await signUp(page, { email: uniqueEmail("chronos") });
  await page.getByRole("link", { name: "Scheduled jobs" }).click();
  await expect(page.getByRole("heading", { name: "Scheduled jobs", level: 1 })).toBeVisible();

  await page.getByRole("button", { name: "New job" }).click();
  const form = page.getByRole("form", { name: "New scheduled job" });
  await form.getByLabel("Name").fill("Disk check");
  await form.getByRole("radio", { name: "Cron" }).check();
  await form.getByRole("textbox", { name: "Cron expression" }).fill("*/2 * * * *");
  await expect(page.getByTestId("schedule-preview")).toContainText("the shortest interval allowed is 5 minutes");
  await form.getByRole("textbox", { name: "Cron expression" }).fill("0 7 * * 1-5");
  await form.getByLabel("Time zone").fill("Europe/Berlin");
  await expect(page.getByTestId("schedule-preview")).toContainText("Next runs");
  await expect(page.getByTestId("schedule-preview").getByRole("listitem")).toHaveCount(5);
  await form.getByLabel("Task").fill("Check the disks. If one is over 90% full, notify me.");
  await form.getByRole("button", { name: "Create job" }).click();

  const job = page.getByTestId("job").filter({ hasText: "Disk check" });
  await expect(job).toContainText("cron 0 7 * * 1-5 (Europe/Berlin)");
  await expect(job).toContainText("Never ran");

  await scriptModel([
    { toolCalls: [{ name: "notify", arguments: { title: "Disk /var 93% full", message: "db-1: /var is at 93%. Rotate the logs.", level: "critical" } }] },
    { text: "Reported the full disk." },
  ]);
  await job.getByRole("button", { name: "Run Disk check now" }).click();
  await expect(page.getByText(/"Disk check" (is running\.|finished)/)).toBeVisible();
  await expect(job.getByTestId("job-run").first()).toContainText("Notified", { timeout: 30_000 });

  const bell = page.getByRole("button", { name: /^Notifications, 1 unread$/ });
  await expect(bell).toBeVisible();
  await bell.click();
  const panel = page.getByRole("region", { name: "Notifications" });
  const notification = panel.getByTestId("notification").filter({ hasText: "Disk /var 93% full" });
  await expect(notification).toContainText("Critical");
  await expect(notification).toContainText("db-1: /var is at 93%");
  await notification.getByRole("link", { name: /Open trace/ }).click();

  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Reported the full disk.")).toBeVisible();
  await expect(page.getByTestId("tool-card").filter({ hasText: "notify" })).toContainText("Notified (critical)");
  // Opening it marked it read.
  await expect(page.getByRole("button", { name: "Notifications" })).toBeVisible();
});
