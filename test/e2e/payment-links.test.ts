// Payment links in real Chromium (docs/api.md, "Payment links"): a customer on a phone, without
// JavaScript, pays through a merchant's payment link; bad input is refused on the page; the pages
// keep their policy (no violations).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { png } from "../helpers/images.ts";
import { cheapPasswordHashes, invitePath, TEST_PASSWORD } from "../helpers/pages.ts";
import { clickAndLoad, launchChromium, needsChromium } from "../helpers/requirements.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("a payment link in a real browser, on a phone, without JavaScript", {
  skip: needsChromium(),
}, () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let browser: Browser;
  let phone: BrowserContext;
  const violations: string[] = [];

  before(async () => {
    service = await startTestService({ FALLBACK_URL: "" });
    group = await service.createGroup({ name: "Plain name" });
    await service.api(group, "PUT", "/api/v1/branding", {
      displayName: "Corner Bakery",
      brandColor: "#1a7f5a",
      logo: `data:image/png;base64,${png().toString("base64")}`,
    });
    browser = await launchChromium();
    phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      javaScriptEnabled: false,
    });
  });
  after(async () => {
    await phone?.close();
    await browser?.close();
    await service?.close();
  });

  const open = async (path: string): Promise<Page> => {
    const page = await phone.newPage();
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${service.url}${path}`);
    return page;
  };
  const newLink = async (body: Record<string, unknown>) =>
    (await service.api(group, "POST", "/api/v1/payment-links", body)).body.data as {
      linkId: string;
      url: string;
    };

  it("refuses a comma amount and a bad address on the page, then pays and lands on the merchant's /done page", async () => {
    const link = await newLink({
      name: "Pay what you like",
      currency: "usd",
      minAmount: 500,
      maxAmount: 20000,
    });
    const page = await open(new URL(link.url).pathname);
    assert.equal(await page.textContent(".merchant"), "Corner Bakery");
    assert.ok(await page.isVisible("header img"), "the logo shows");
    await page.fill("#amount", "12,50");
    await page.fill("#email", "jane@example.com");
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    assert.match((await page.textContent("#amount-error")) ?? "", /Use a dot for cents, e\.g\. 12\.50/);
    assert.equal(await page.inputValue("#amount"), "12,50", "what was typed stays");
    await page.fill("#amount", "12.50");
    // The browser takes it (its own check passes); the service does not: no dot in the domain.
    await page.fill("#email", "jane@localhost");
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    assert.match((await page.textContent("#email-error")) ?? "", /Enter your e-mail address/);
    const none = await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${link.linkId}`);
    assert.equal(none.body.data.payments.length, 0, "nothing created by refused forms");

    await page.fill("#email", "jane@example.com");
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    assert.ok(page.url().startsWith(`${service.sandboxUrl}/checkout/`), page.url());
    assert.equal(await page.textContent("#line-item"), "Payment to Corner Bakery");
    await page.fill("#card", "4242 4242 4242 4242");
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    assert.match(page.url(), /\/done\/[A-Za-z0-9_-]+$/);
    assert.equal(await page.textContent(".status"), "Payment received");
    assert.match(
      (await page.textContent("main")) ?? "",
      /Corner Bakery has received your payment of 12\.50 USD/,
    );
    await page.close();
  });

  it("a fixed price shows as it is; an inactive link and an unknown one are clear pages", async () => {
    const fixed = await newLink({ name: "Sourdough loaf", currency: "usd", amount: 650 });
    const page = await open(new URL(fixed.url).pathname);
    assert.equal(await page.textContent(".price"), "6.50 USD");
    assert.equal(await page.isVisible("#amount"), false);
    await service.api(group, "PATCH", `/api/v1/payment-links/${fixed.linkId}`, { active: false });
    await page.reload();
    assert.match((await page.textContent("h1")) ?? "", /no longer active/);
    await page.goto(`${service.url}/l/AAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(await page.textContent("h1"), "Payment link not found");
    await page.close();
  });

  it("an owner makes a link on the dashboard, sees its QR code and copies its URL with one button", async () => {
    const inviteUrl = (
      await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, {
        email: "owner@bakery.example",
        role: "owner",
      })
    ).body.data.inviteUrl as string;
    const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await desk.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    const page = await desk.newPage();
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${service.url}${invitePath(inviteUrl)}`);
    await page.fill('input[name="password"]', TEST_PASSWORD);
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    await page.goto(`${service.url}/dashboard/payment-links`);
    await page.fill("#name", "Croissant box");
    await page.fill("#amount", "18.00");
    await clickAndLoad(page, () => page.click("text=Create the link"));
    const section = page.locator("section.link", { hasText: "Croissant box" });
    assert.equal(await section.locator("svg.qr").count(), 1);
    const url = await section.locator("input.copy").inputValue();
    assert.match(url, /\/l\/[A-Za-z0-9_-]{22}$/);
    await section.locator("button", { hasText: "Copy" }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);

    // Branding: an SVG renamed to .png is refused by its bytes, and nothing changes; a PNG is taken.
    await page.goto(`${service.url}/dashboard/branding`);
    await page.setInputFiles("#logo", {
      name: "logo.png",
      mimeType: "image/png",
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    });
    await clickAndLoad(page, () => page.click("button:text-is('Save')"));
    assert.match((await page.textContent("[role=alert]")) ?? "", /PNG or JPEG image: its bytes are neither/);
    await page.fill("#displayName", "Corner Bakery & Café");
    await page.setInputFiles("#logo", { name: "logo.png", mimeType: "image/png", buffer: png() });
    await clickAndLoad(page, () => page.click("button:text-is('Save')"));
    assert.match((await page.textContent("[role=status]")) ?? "", /Branding saved/);
    const frame = page.frameLocator("iframe.preview");
    assert.equal(await frame.locator(".merchant").textContent(), "Corner Bakery & Café");
    await desk.close();
  });

  it("no page broke its content security policy", () => {
    assert.deepEqual(violations, []);
  });
});
