// Password reset, two-factor enrolment and two-factor sign-in, as a person does them in Chromium.
// With SCREENSHOT_DIR set, each page is saved there to be looked at.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as OTPAuth from "otpauth";
import type { Browser, Page } from "playwright-core";
import { invitePath, TEST_PASSWORD } from "../helpers/pages.ts";
import { clickAndLoad, launchChromium, needsChromium } from "../helpers/requirements.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

const NEW_PASSWORD = "a new password chosen in the browser";

describe("account security in a real browser", { skip: needsChromium() }, () => {
  let service: TestService;
  let group: TestGroup;
  let browser: Browser;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const newPage = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1000, height: 900 } })).newPage();
    page.on("dialog", (dialog) => {
      throw new Error(`unexpected dialog: ${dialog.message()}`);
    });
    return page;
  };
  const look = async (page: Page, name: string) => {
    const dir = process.env.SCREENSHOT_DIR;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  };
  const submit = (page: Page, url: string) =>
    Promise.all([page.waitForURL(url), page.click("main button[type=submit]")]);

  it("resets a forgotten password, turns on two-factor sign-in, and signs in with a code", async () => {
    const invite = (
      await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, {
        email: "browser-owner@example.com",
        role: "owner",
      })
    ).body.data.inviteUrl as string;
    const page = await newPage();
    await page.goto(`${service.url}${invitePath(invite)}`);
    await page.fill('input[name="password"]', TEST_PASSWORD);
    await submit(page, `${service.url}/dashboard`);

    // Reset: the link from the admin API, a new password, signed in.
    const reset = (
      await service.admin("POST", "/admin/v1/accounts/password-resets", {
        email: "browser-owner@example.com",
        audience: "dashboard",
      })
    ).body.data.resetUrl as string;
    const resetPage = await newPage();
    await resetPage.goto(`${service.url}${new URL(reset).pathname}`);
    assert.match((await resetPage.textContent("h1")) ?? "", /Choose a new password/);
    await look(resetPage, "password-reset");
    await resetPage.fill('input[name="password"]', NEW_PASSWORD);
    await submit(resetPage, `${service.url}/dashboard`);
    // The reset ended the first browser's session.
    await page.goto(`${service.url}/dashboard/payments`);
    assert.match(page.url(), /\/dashboard\/login$/);

    // Two-factor enrolment on the account page.
    await resetPage.goto(`${service.url}/dashboard/account`);
    assert.equal(await resetPage.locator("svg.qr").count(), 1);
    await look(resetPage, "two-factor-enrolment");
    const uri = (await resetPage.textContent("#otpauth-uri")) ?? "";
    const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
    await resetPage.fill('input[name="code"]', totp.generate());
    await clickAndLoad(resetPage, () => resetPage.click("#two-factor button[type=submit]"));
    const codes = await resetPage.locator(".recovery-codes li").allTextContents();
    assert.equal(codes.length, 10);
    await look(resetPage, "two-factor-recovery-codes");

    // Sign-in: password, then the code.
    const signIn = await newPage();
    await signIn.goto(`${service.url}/dashboard/login`);
    await signIn.fill('input[name="email"]', "browser-owner@example.com");
    await signIn.fill('input[name="password"]', NEW_PASSWORD);
    await clickAndLoad(signIn, () => signIn.click("main button[type=submit]"));
    assert.match((await signIn.textContent("h1")) ?? "", /Two-factor sign-in/);
    await look(signIn, "two-factor-sign-in");
    await signIn.fill('input[name="code"]', totp.generate({ timestamp: Date.now() + 30_000 }));
    await submit(signIn, `${service.url}/dashboard`);
    assert.match((await signIn.textContent("h1")) ?? "", /Overview|Dashboard|Last 30 days/i);
  });
});
