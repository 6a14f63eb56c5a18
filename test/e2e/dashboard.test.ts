// The dashboard and console in real Chromium: a merchant's whole refund
// story, what a viewer may not do, CSRF, throttling, revocation, escaping, and an operator's queue.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { cheapPasswordHashes, invitePath, TEST_PASSWORD } from "../helpers/pages.ts";
import type { Receiver } from "../helpers/receiver.ts";
import { clickAndLoad, launchChromium, needsChromium } from "../helpers/requirements.ts";
import { startWithReceiver, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("the dashboard and console in a real browser", { skip: needsChromium() }, () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let stop: () => Promise<void>;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ({ service, group, receiver, stop } = await startWithReceiver({ "/hooks": () => 200 }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await stop?.();
  });

  /** A fresh browser profile in New York, failing the test on any dialog (an XSS probe firing). */
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ timezoneId: "America/New_York", locale: "en-US" });
    contexts.push(context);
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      throw new Error(`unexpected dialog: ${dialog.message()}`);
    });
    return page;
  };

  const invite = async (email: string, role: string) =>
    (await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, { email, role })).body.data
      .inviteUrl as string;

  /** Opens the invite link, chooses a password and lands signed in. */
  const acceptInBrowser = async (page: Page, inviteUrl: string, home = "/dashboard") => {
    await page.goto(`${service.url}${invitePath(inviteUrl)}`);
    await page.fill('input[name="password"]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${service.url}${home}`), page.click("button[type=submit]")]);
  };

  const signIn = async (page: Page, email: string, password: string) => {
    await page.goto(`${service.url}/dashboard/login`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', password);
    await clickAndLoad(page, () => page.click("button[type=submit]"));
  };

  const paidPayment = async (overrides: Record<string, unknown> = {}) => {
    const created = (
      await service.createPayment(group, { webhookUrl: `${receiver.url}/hooks`, amount: 5000, ...overrides })
    ).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () => {
      const read = await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`);
      return read.body.data.status === "succeeded" ? true : undefined;
    });
    return created;
  };

  /** Reloads until `check` holds: the processor's events and webhook attempts arrive after the click. */
  const reloadUntil = async (page: Page, check: () => Promise<boolean>, what: string) =>
    waitFor(
      async () => {
        await page.reload();
        return (await check()) ? true : undefined;
      },
      10_000,
      what,
    );

  it("invite → password → find by email → refund → partially_refunded → resend webhook → export CSV", async () => {
    const payment = await paidPayment({ customerEmail: "alice@buyer.example", description: "Blue mug" });
    await service.createPayment(group, { customerEmail: "someone-else@buyer.example" });
    const page = await newPage();
    await acceptInBrowser(page, await invite("owner@shop.example", "owner"));
    assert.match((await page.textContent("h1")) ?? "", /Last 30 days/);

    await page.click('nav a[href="/dashboard/payments"]');
    await page.fill("#q", "alice@buyer.example");
    await Promise.all([page.waitForURL(/q=alice/), page.click("form[role=search] button[type=submit]")]);
    const links = page.locator('table a[href^="/dashboard/payments/"]');
    assert.equal(await links.count(), 1);
    await Promise.all([
      page.waitForURL(`**/dashboard/payments/${payment.transactionId}`),
      links.first().click(),
    ]);
    assert.equal(await page.textContent("#description"), "Blue mug");
    // Times are shown in the viewer's zone, with UTC on hover.
    const created = page.locator("dl.facts time").first();
    assert.match((await created.getAttribute("title")) ?? "", /UTC$/);
    assert.doesNotMatch((await created.textContent()) ?? "", /UTC/);

    await page.fill("#refund-amount", "12.50");
    await page.selectOption("#refund-reason", "requested_by_customer");
    await clickAndLoad(page, () => page.click("#refund-form button[type=submit]"));
    assert.match((await page.textContent("#refund-confirm [role=alert]")) ?? "", /Refund 12\.50 USD of /);
    await clickAndLoad(page, () => page.click("#refund-confirm button[type=submit]"));
    assert.match((await page.textContent("[role=status]")) ?? "", /Refund of 12\.50 USD requested/);
    await reloadUntil(
      page,
      async () => (await page.getAttribute("#payment-status", "data-status")) === "partially_refunded",
      "partially_refunded",
    );
    assert.match(
      (await page.textContent("#refunds")) ?? "",
      /12\.50 USD[\s\S]*Succeeded[\s\S]*Requested by customer/,
    );
    assert.equal(await page.textContent("#amount-refunded"), "12.50 USD");

    const event = page.locator("section.event", { hasText: "payment.completed" });
    const attemptsBefore = await event.locator("table.attempts tbody tr").count();
    assert.ok(attemptsBefore >= 1);
    const delivered = receiver.at("/hooks").length;
    await clickAndLoad(page, () => event.locator("button", { hasText: "Resend" }).click());
    await reloadUntil(
      page,
      async () =>
        (await page
          .locator("section.event", { hasText: "payment.completed" })
          .locator("table.attempts tbody tr")
          .count()) > attemptsBefore,
      "the resent attempt",
    );
    assert.ok(receiver.at("/hooks").length > delivered, "the receiver got it again");

    await page.goto(`${service.url}/dashboard/payments?q=alice%40buyer.example`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=Export CSV")]);
    const csv = await readFile((await download.path()) as string, "utf8");
    const [header, row] = csv.split("\r\n");
    assert.equal(
      header,
      "transactionId,status,amount,currency,amountRefunded,customerEmail,description,createdAt,completedAt",
    );
    assert.match(
      row ?? "",
      new RegExp(`^${payment.transactionId},partially_refunded,5000,usd,1250,alice@buyer.example,Blue mug,`),
    );
  });

  it("a developer answers a dispute in the inbox: evidence, the confirmation, then under review", async () => {
    const payment = await paidPayment();
    const intent = (await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}`)).body.data
      .processorPaymentIntentId;
    await service.sandboxPost(`/sandbox/payment_intents/${intent}/dispute`, {
      evidenceDueBy: new Date(Date.now() + 30 * 3_600_000).toISOString(),
    });
    const page = await newPage();
    await acceptInBrowser(page, await invite("disputes@shop.example", "developer"));
    await page.goto(`${service.url}/dashboard/disputes`);
    await reloadUntil(
      page,
      async () => (await page.locator("#open-disputes tr.due-soon").count()) === 1,
      "the dispute",
    );
    await clickAndLoad(page, () => page.locator("#open-disputes tr.due-soon a").click());
    await page.fill("#evidence-productDescription", "A <script>alert(1)</script> teapot");
    await page.check('#evidence-form input[name="submit"]');
    await clickAndLoad(page, () => page.click("#evidence-form button[type=submit]"));
    assert.match((await page.textContent("#submit-confirm")) ?? "", /<script>alert\(1\)<\/script> teapot/);
    await clickAndLoad(page, () => page.click("#submit-confirm button[type=submit]"));
    assert.match((await page.textContent("main")) ?? "", /Evidence submitted/);
    const [dispute] = (await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}/disputes`))
      .body.data.disputes;
    assert.equal(dispute.status, "under_review");
  });

  it("a viewer sees no refund form and no secrets; a direct POST and a POST without CSRF are refused", async () => {
    const payment = await paidPayment();
    const page = await newPage();
    await acceptInBrowser(page, await invite("viewer@shop.example", "viewer"));
    await page.goto(`${service.url}/dashboard/payments/${payment.transactionId}`);
    assert.equal(await page.locator("#refund-form").count(), 0);
    assert.equal(await page.locator("text=Resend").count(), 0);
    const token = await page.locator('input[name="_csrf"]').first().getAttribute("value");
    const direct = await page.request.post(
      `${service.url}/dashboard/payments/${payment.transactionId}/refunds`,
      {
        form: { _csrf: token ?? "", amount: "50.00", key: "00000000-0000-4000-8000-000000000002" },
        maxRedirects: 0,
      },
    );
    assert.equal(direct.status(), 403);
    await page.goto(`${service.url}/dashboard/developers`);
    assert.equal(await page.locator("text=Reveal").count(), 0);
    assert.doesNotMatch(await page.content(), /whsec_/);
    const reveal = await page.request.post(`${service.url}/dashboard/developers/webhook-secret/reveal`, {
      form: { _csrf: token ?? "" },
      maxRedirects: 0,
    });
    assert.equal(reveal.status(), 403);
    assert.doesNotMatch(await reveal.text(), /whsec_/);
    const noToken = await page.request.post(`${service.url}/dashboard/logout`, { form: {}, maxRedirects: 0 });
    assert.equal(noToken.status(), 403, "no CSRF token, no action");
    await page.goto(`${service.url}/dashboard`);
    assert.match(
      (await page.textContent("h1")) ?? "",
      /Last 30 days/,
      "still signed in: the tokenless sign-out did nothing",
    );
    const refunds = await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}/refunds`);
    assert.equal(refunds.body.data.refunds.length, 0);
  });

  it("on a 390-pixel phone each payment shows its amount and status without scrolling sideways", async () => {
    await paidPayment({
      customerEmail: "a.rather.long.address.for.a.phone@customer.example",
      description: "Two hand-thrown mugs and a teapot",
    });
    const page = await newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await acceptInBrowser(page, await invite("phone@shop.example", "viewer"));
    await page.goto(`${service.url}/dashboard/payments`);
    const row = page.locator("#payments tbody tr").first();
    for (const cell of ["td.num", "td.state", "td.when", "td.who"]) {
      const box = await row.locator(cell).boundingBox();
      assert.ok(box, cell);
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `${cell} within the screen: ${JSON.stringify(box)}`);
    }
    const scrolls = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrolls <= 390, `the page is ${scrolls} px wide`);
  });

  it("throttles a wrong password: after 10 failures even the right one is refused", async () => {
    const owner = await newPage();
    await acceptInBrowser(owner, await invite("throttle@shop.example", "developer"));
    const page = await newPage();
    for (let attempt = 1; attempt <= 10; attempt++)
      await signIn(page, "throttle@shop.example", `wrong-${attempt}`);
    assert.match((await page.textContent("[role=alert]")) ?? "", /Too many failed sign-ins/);
    await signIn(page, "throttle@shop.example", TEST_PASSWORD);
    assert.match((await page.textContent("[role=alert]")) ?? "", /Too many failed sign-ins/);
    assert.ok(page.url().endsWith("/dashboard/login"));
  });

  it("a revoked session is signed out", async () => {
    const laptop = await newPage();
    await acceptInBrowser(laptop, await invite("revoke@shop.example", "viewer"));
    const phone = await newPage();
    await signIn(phone, "revoke@shop.example", TEST_PASSWORD);
    assert.ok(phone.url().endsWith("/dashboard"));
    await laptop.goto(`${service.url}/dashboard/account`);
    const others = laptop
      .locator("tr", { hasNotText: "current session" })
      .locator("button", { hasText: "Sign out this session" });
    assert.equal(await others.count(), 1);
    await clickAndLoad(laptop, () => others.first().click());
    await phone.reload();
    assert.ok(phone.url().endsWith("/dashboard/login"), phone.url());
    await laptop.reload();
    assert.ok(laptop.url().endsWith("/dashboard/account"));
  });

  it("an XSS probe in the description, metadata and customer name is shown as text and never runs", async () => {
    const probe = `<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script>`;
    const created = (
      await service.createPayment(group, {
        description: probe,
        customerName: probe,
        metadata: { note: probe },
      })
    ).body.data;
    const page = await newPage();
    await acceptInBrowser(page, await invite("xss@shop.example", "viewer"));
    for (const path of [`/dashboard/payments/${created.transactionId}`, "/dashboard/payments"]) {
      await page.goto(`${service.url}${path}`);
      assert.equal(
        await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
        undefined,
        path,
      );
      assert.equal(await page.locator("img[src=x]").count(), 0, path);
    }
    await page.goto(`${service.url}/dashboard/payments/${created.transactionId}`);
    assert.equal(await page.textContent("#description"), probe);
    assert.equal(await page.textContent("#metadata td:nth-child(2)"), probe);
  });

  it("an operator resolves a reconciliation item with a note", async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const operatorInvite = (
      await service.admin("POST", "/admin/v1/operators", { email: "ops@checkout.example" })
    ).body.data;
    const page = await newPage();
    await acceptInBrowser(page, operatorInvite.inviteUrl, "/operator");
    // Loaded before the first reload: a reload while the link's navigation runs hits a page being replaced.
    await Promise.all([
      page.waitForURL("**/operator/reconciliation"),
      page.click('nav a[href="/operator/reconciliation"]'),
    ]);
    const item = page.locator(".reconciliation-item", { hasText: created.transactionId });
    await reloadUntil(page, async () => (await item.count()) === 1, "the flagged payment in the queue");
    assert.match((await item.textContent()) ?? "", /Paid after it was cancelled/);
    await item.locator("textarea").fill("Refunded at the processor by hand");
    await clickAndLoad(page, () => item.locator("button", { hasText: "Resolve" }).click());
    assert.match((await page.textContent("[role=status]")) ?? "", /Resolved/);
    assert.equal(await page.locator(".reconciliation-item", { hasText: created.transactionId }).count(), 0);
    await page.click('nav a[href="/operator/audit"]');
    assert.match(
      (await page.textContent("#audit")) ?? "",
      /reconciliation\.resolved[\s\S]*Refunded at the processor by hand/,
    );
  });
});
