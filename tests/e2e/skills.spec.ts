import { expect, test } from "@playwright/test";
import { adminPage, openNewChat, signUp, uniqueEmail } from "./helpers";

// An admin uploads a skill, reads its scan report and enables that exact version; a person's chat then uses it.
const fakeUrl = process.env.E2E_FAKE_LLM_URL!;

const SKILL = `---
name: e2e-pirate
description: Answer greetings like a friendly pirate.
---

# Pirate greetings

Start every greeting with "Ahoy" and end it with "Arr!".
`;

test("an admin uploads a skill, reads its report, enables it; a user's chat uses it", async ({ browser }) => {
  const { context: adminContext, page: admin } = await adminPage(browser, "skills-admin");
  await admin.goto("/admin/skills");
  await admin.getByLabel("A .zip or a SKILL.md").setInputFiles({ name: "SKILL.md", mimeType: "text/markdown", buffer: Buffer.from(SKILL) });
  await admin.getByRole("button", { name: "Upload and scan" }).click();
  const report = admin.getByTestId("scan-report").first();
  await expect(report).toContainText("No high-risk findings");
  await expect(report).toContainText("SHA-256");
  await expect(admin.getByText("Staged e2e-pirate")).toBeVisible();

  const row = admin.getByTestId("skill-e2e-pirate");
  await expect(row).toContainText("staged");
  await row.getByText("Review, visibility and revisions").click();
  await expect(row.getByTestId("scan-report")).toContainText("SKILL.md");
  await row.getByRole("button", { name: "Enable this version" }).click();
  await expect(row.getByText("enabled", { exact: true })).toBeVisible();
  await adminContext.close();

  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email: uniqueEmail("skills-user") });
  await page.goto("/skills");
  await expect(page.getByRole("list", { name: "Skills you can use" })).toContainText("e2e-pirate");

  await fetch(`${fakeUrl}/_control/reset`, { method: "POST" });
  await fetch(`${fakeUrl}/_control/script`, {
    method: "POST",
    body: JSON.stringify({ replies: [{ toolCalls: [{ name: "skill_load", arguments: { name: "e2e-pirate" } }] }, { text: "Ahoy, matey! Arr!" }] }),
  });
  await openNewChat(page);
  await page.getByLabel("Message").fill("$e2e-pirate say hello");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("assistant-message").last()).toContainText("Ahoy, matey! Arr!");
  await expect(page.getByTestId("tool-card").first()).toContainText("skill_load");

  // The model saw the skill in its catalog and got its instructions for this message ($name).
  const { requests } = (await (await fetch(`${fakeUrl}/_control/requests`)).json()) as { requests: { body: { messages: { role: string; content: unknown }[] } }[] };
  const system = String(requests[0]!.body.messages[0]!.content);
  expect(system).toContain("- e2e-pirate: Answer greetings like a friendly pirate.");
  expect(system).toContain('Start every greeting with "Ahoy"');
  const toolResult = JSON.stringify(requests[1]!.body.messages.at(-1));
  expect(toolResult).toContain("# Skill: e2e-pirate");
  await context.close();
});
