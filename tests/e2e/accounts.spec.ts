import { expect, test } from "@playwright/test";
import { apiStatus, expectSignedOut, PASSWORD, rememberAdmin, signedInContext, signIn, signUp, uniqueEmail } from "./helpers";

// One story, in order: the first account becomes the admin the later steps rely on.
test.describe.configure({ mode: "serial" });

const admin = { email: uniqueEmail("admin"), name: "Ada Admin" };
const member = { email: uniqueEmail("member"), name: "Max Member" };

test("the first person to sign up becomes admin and lands in the app", async ({ page }) => {
  await signUp(page, admin);
  await expect(page.getByRole("link", { name: "Admin" })).toBeVisible();
  const me = await page.evaluate(async () => (await fetch("/api/me")).json());
  expect(me).toMatchObject({ email: admin.email, name: admin.name, role: "admin" });
  // Later specs that need an admin (plugins and skills) sign in as this one.
  await rememberAdmin(admin.email);
});

test("sign-up refuses a duplicate email and a weak password with clear messages", async ({ page }) => {
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert")).toContainText("An account with this email already exists");
  await page.getByLabel("Email").fill(uniqueEmail("weak"));
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert")).toContainText("at least 8 characters");
});

test("sign in shows a clear error for a wrong password, then signs in and out", async ({ page }) => {
  await signIn(page, { email: admin.email, password: "not-the-password-1" });
  await expect(page.getByRole("alert")).toContainText("Email or password is incorrect.");
  await signIn(page, { email: admin.email });
  await page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in/);
  await expectSignedOut(page);
});

test("an API token is shown once, works as a bearer token, and stops working when revoked", async ({ browser, request }) => {
  const { context, page } = await signedInContext(browser, admin.email);
  await page.goto("/settings");
  await page.getByLabel("Token name").fill("e2e laptop");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("shown-secret").textContent())?.trim() ?? "";
  expect(token).toMatch(/^xclaw_[\w-]{43}$/);

  const withToken = await request.get("/api/me", { headers: { authorization: `Bearer ${token}` } });
  expect(withToken.status()).toBe(200);
  expect((await withToken.json()).email).toBe(admin.email);

  await page.reload();
  await expect(page.getByTestId("shown-secret")).toHaveCount(0);
  await expect(page.getByText("e2e laptop")).toBeVisible();
  await page.getByRole("button", { name: "Revoke e2e laptop" }).click();
  await expect(page.getByText("e2e laptop")).toHaveCount(0);
  const afterRevoke = await request.get("/api/me", { headers: { authorization: `Bearer ${token}` } });
  expect(afterRevoke.status()).toBe(401);
  await context.close();
});

test("sign out everywhere ends every other session at once", async ({ browser }) => {
  const first = await signedInContext(browser, admin.email);
  const second = await signedInContext(browser, admin.email);
  expect(await apiStatus(second.page, "/api/me")).toBe(200);

  await first.page.goto("/settings");
  await first.page.getByRole("button", { name: "Sign out everywhere" }).click();
  await first.page.waitForURL(/\/sign-in/);

  await expectSignedOut(second.page);
  await first.context.close();
  await second.context.close();
});

test("an admin disables a user: their open session stops working and they cannot sign in", async ({ browser }) => {
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signUp(memberPage, member);
  await expect(memberPage.getByRole("link", { name: "Admin" })).toHaveCount(0);
  expect(await apiStatus(memberPage, "/api/me")).toBe(200);

  const adminSession = await signedInContext(browser, admin.email);
  await adminSession.page.goto("/admin/users");
  await adminSession.page.getByRole("button", { name: `Disable ${member.email}` }).click();
  await expect(adminSession.page.getByRole("button", { name: `Enable ${member.email}` })).toBeVisible();

  await expectSignedOut(memberPage);
  await signIn(memberPage, { email: member.email });
  await expect(memberPage.getByRole("alert")).toContainText("This account is disabled");

  await adminSession.page.getByRole("button", { name: `Enable ${member.email}` }).click();
  await expect(adminSession.page.getByRole("button", { name: `Disable ${member.email}` })).toBeVisible();
  await signIn(memberPage, { email: member.email });
  await memberPage.waitForURL((url) => url.pathname === "/");
  await adminSession.context.close();
  await memberContext.close();
});

test("an admin closes registration and sign-up says so", async ({ browser }) => {
  const adminSession = await signedInContext(browser, admin.email);
  await adminSession.page.goto("/admin/users");
  const toggle = adminSession.page.getByLabel("Allow new people to sign up");
  await expect(toggle).toBeChecked();
  await toggle.click();
  await expect(toggle).not.toBeChecked();

  const visitor = await browser.newContext();
  const visitorPage = await visitor.newPage();
  await visitorPage.goto("/sign-up");
  await expect(visitorPage.getByText("Registration is closed")).toBeVisible();
  const attempt = await visitorPage.request.post("/api/register", { data: { email: uniqueEmail("late"), password: PASSWORD } });
  expect(attempt.status()).toBe(403);

  await toggle.click();
  await expect(toggle).toBeChecked();
  await visitor.close();
  await adminSession.context.close();
});

test("the sign-in page shows its own sentences for ?error= links, never the link's wording", async ({ page }) => {
  const phishing = "Your account is locked. Call +1 555 0100 or visit evil.example to unlock it.";
  await page.goto(`/sign-in?error=${encodeURIComponent(phishing)}`);
  await expect(page.getByRole("alert")).toHaveText("Sign-in failed. Try again.");
  await expect(page.locator("body")).not.toContainText("evil.example");
  await page.goto("/sign-in?error=rate_limited_30");
  await expect(page.getByRole("alert")).toHaveText("Too many failed sign-in attempts. Try again in 30 s.");
});

test("sign-in offers 'Create an account' only while registration is open", async ({ browser }) => {
  const adminSession = await signedInContext(browser, admin.email);
  await adminSession.page.goto("/admin/users");
  const toggle = adminSession.page.getByLabel("Allow new people to sign up");
  await toggle.click();
  await expect(toggle).not.toBeChecked();
  const visitor = await browser.newPage();
  await visitor.goto("/sign-in");
  await expect(visitor.getByRole("link", { name: "Create an account" })).toHaveCount(0);
  await expect(visitor.getByText("Ask an administrator for an invitation.")).toBeVisible();
  await toggle.click();
  await expect(toggle).toBeChecked();
  await visitor.reload();
  await expect(visitor.getByRole("link", { name: "Create an account" })).toBeVisible();
  await visitor.close();
  await adminSession.context.close();
});

test("an admin adds a person with a one-time invitation link; they choose a password and are signed in", async ({ browser }) => {
  const adminSession = await signedInContext(browser, admin.email);
  const invited = uniqueEmail("invited");
  await adminSession.page.goto("/admin/users");
  await adminSession.page.getByLabel("Email of the new person").fill(invited);
  await adminSession.page.getByLabel("Their name").fill("Ivy Invited");
  await adminSession.page.getByRole("button", { name: "Add person" }).click();
  const link = (await adminSession.page.getByTestId("account-link-url").textContent())!.trim();
  expect(link).toMatch(/\/set-password\/[A-Za-z0-9_-]{43}$/);
  await expect(adminSession.page.getByRole("row").filter({ hasText: invited })).toContainText("Invited");

  const guest = await browser.newContext();
  const page = await guest.newPage();
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Welcome, Ivy Invited" })).toBeVisible();
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByRole("alert")).toContainText("at least 8 characters");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  expect(await page.evaluate(async () => (await fetch("/api/me")).json())).toMatchObject({ email: invited, name: "Ivy Invited", role: "user" });
  // The link worked once.
  const again = await guest.newPage();
  await again.goto(link);
  await expect(again.getByText("This link is not valid any more")).toBeVisible();
  await guest.close();
  await adminSession.context.close();
});

test("an admin resets a password with a one-time link; the old password stops working", async ({ browser }) => {
  const adminSession = await signedInContext(browser, admin.email);
  await adminSession.page.goto("/admin/users");
  await adminSession.page.getByRole("button", { name: `Password reset link for ${member.email}` }).click();
  const link = (await adminSession.page.getByTestId("account-link-url").textContent())!.trim();
  const guest = await browser.newContext();
  const page = await guest.newPage();
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await page.getByLabel("New password").fill("a-brand-new-secret-9");
  await page.getByRole("button", { name: "Change password and sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in/);
  await signIn(page, { email: member.email });
  await expect(page.getByRole("alert")).toContainText("Email or password is incorrect.");
  await signIn(page, { email: member.email, password: "a-brand-new-secret-9" });
  await page.waitForURL((url) => url.pathname === "/");
  await guest.close();
  await adminSession.context.close();
});

test("people change their sign-in email in Settings", async ({ browser }) => {
  const email = uniqueEmail("mover");
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, { email });
  await page.goto("/settings");
  const moved = uniqueEmail("moved");
  await page.getByLabel("Email address").fill(moved);
  await page.getByRole("region", { name: "Email" }).getByLabel("Current password").fill(PASSWORD);
  await page.getByRole("button", { name: "Change email" }).click();
  await expect(page.getByText(`Sign in with ${moved} from now on.`)).toBeVisible();
  expect((await page.evaluate(async () => (await fetch("/api/me")).json())).email).toBe(moved);
  await context.close();
});
