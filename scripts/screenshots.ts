// `npm run screenshots`: starts the service on a fresh embedded database with the sandbox,
// seeds a month of payments through the real API and processor simulation, and has Chromium save
// the dashboard overview, a payment's page, the operator's reconciliation queue, the payment links
// and branding pages, and what a customer sees of a payment link on a phone into docs/images/ for
// the README; the receipt e-mail a customer gets, the not-paid page, the payments list on a phone
// and the console's processors too. Everything runs on loopback.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { chromium, type Page } from "playwright-core";
import { loadConfig } from "../src/config/config.ts";
import { startService } from "../src/server/lifecycle.ts";

const OUT = "docs/images";
const PASSWORD = "screenshot password 1";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const receiver = createServer((request, response) => {
  // Most deliveries succeed; one path keeps failing, so the pages have failures to show.
  // What a shop's endpoint answers, shown in each attempt's row.
  if (request.url === "/flaky") response.writeHead(503).end('{"error":"busy, try again"}');
  else response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const dataDir = await mkdtemp(join(tmpdir(), "checkout-screenshots-"));
const adminToken = `adm_${randomBytes(24).toString("base64url")}`;
const running = await startService(
  loadConfig({
    PORT: "0",
    SANDBOX_PORT: "0",
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: "error",
    ALLOWED_PRIVATE_HOSTS: new URL(receiverUrl).host,
    WEBHOOK_RETRY_DELAYS: "0.05,0.05",
    MAIL_DIR: join(dataDir, "mail"),
  }),
);
const { url, sandboxUrl, services } = running;

async function call(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(init.body !== undefined && { "content-type": "application/json" }), ...init.headers },
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  const body = (await response.json()) as { data: Record<string, string> & { status: string } };
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}
const admin = (path: string, body: unknown) =>
  call(path, { method: "POST", body, headers: { authorization: `Bearer ${adminToken}` } });
const simulate = (path: string, body: unknown) =>
  fetch(`${sandboxUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

try {
  const group = (
    await admin("/admin/v1/groups", {
      name: "Harbour Coffee Roasters",
      safeSites: [{ name: "Main", url: "https://pay.harbour.example" }],
    })
  ).data;
  const keys = { "x-public-key": group.publicKey as string, "x-secret-key": group.secretKey as string };
  const api = (method: string, path: string, body?: unknown) => call(path, { method, body, headers: keys });
  const customers = [
    "ana@example.com",
    "ben@example.org",
    "chloe@example.net",
    "dev@example.com",
    "eli@example.org",
  ];
  const products = [
    "Ethiopia Yirgacheffe 1 kg",
    "Espresso blend 500 g",
    "Hand grinder",
    "Pour-over kit",
    "Gift card",
  ];

  // Webhook endpoints: fulfilment takes completed payments; a warehouse on trial that keeps failing.
  await api("POST", "/api/v1/webhook-endpoints", {
    url: `${receiverUrl}/hooks`,
    events: ["payment.completed"],
    description: "Fulfilment",
  });
  await api("POST", "/api/v1/webhook-endpoints", {
    url: `${receiverUrl}/flaky`,
    description: "Data warehouse (trial)",
  });

  const created: { id: string; sessionId: string; daysAgo: number }[] = [];
  for (let index = 0; index < 140; index++) {
    const payment = (
      await api("POST", "/api/v1/payments/create", {
        amount: 900 + ((index * 7919) % 12000),
        currency: index % 9 === 0 ? "cad" : "usd",
        customerEmail: customers[index % customers.length],
        customerName: "Demo customer",
        description: products[index % products.length],
        metadata: { orderId: `HC-${10_400 + index}`, channel: index % 3 === 0 ? "wholesale" : "web" },
        successUrl: "https://harbour.example/thanks",
        cancelUrl: "https://harbour.example/cart",
        webhookUrl: `${receiverUrl}/${index % 17 === 0 ? "flaky" : "hooks"}`,
      })
    ).data;
    // Busier towards today, with a weekly rhythm.
    const daysAgo = Math.floor(29 * (1 - Math.sqrt(((index * 37) % 140) / 140)));
    created.push({ id: payment.transactionId as string, sessionId: payment.sessionId as string, daysAgo });
    const roll = (index * 53) % 20;
    if (roll < 14)
      await simulate(`/sandbox/sessions/${payment.sessionId}/complete`, { outcome: "succeeded" });
    else if (roll < 16)
      await simulate(`/sandbox/sessions/${payment.sessionId}/complete`, { outcome: "failed" });
    else if (roll < 18) await api("DELETE", `/api/v1/payments/${payment.transactionId}`);
  }
  await sleep(1500);
  // A refunded one, a partially refunded one, and one paid after it was cancelled (reconciliation).
  const succeeded = [];
  for (const payment of created.slice(-30)) {
    if ((await api("GET", `/api/v1/payments/${payment.id}`)).data.status === "succeeded")
      succeeded.push(payment);
  }
  const featured = succeeded[0] as (typeof created)[number];
  await api("POST", `/api/v1/payments/${featured.id}/refunds`, {
    amount: 500,
    reason: "requested_by_customer",
  });
  await api("POST", `/api/v1/payments/${succeeded[1]?.id}/refunds`, {});
  // Three disputes for the inbox: one due within 72 hours, one later, one answered.
  const disputed = [
    { payment: succeeded[2], reason: "product_not_received", dueInHours: 40 },
    { payment: succeeded[3], reason: "fraudulent", dueInHours: 24 * 9 },
    { payment: succeeded[4], reason: "duplicate", dueInHours: 24 * 5 },
  ];
  for (const { payment, reason, dueInHours } of disputed) {
    if (!payment) continue;
    const intent = (await api("GET", `/api/v1/payments/${payment.id}`)).data.processorPaymentIntentId;
    await simulate(`/sandbox/payment_intents/${intent}/dispute`, {
      reason,
      evidenceDueBy: new Date(Date.now() + dueInHours * 3_600_000).toISOString(),
    });
  }
  await sleep(1000);
  const inbox = (await api("GET", "/api/v1/disputes")).data.disputes as unknown as { disputeId: string }[];
  const answered = inbox.at(-1);
  if (answered)
    await api("POST", `/api/v1/disputes/${answered.disputeId}/evidence`, {
      shippingTracking: "1Z999AA10123456784",
      submit: true,
    });
  for (const [amount, customerEmail] of [
    [4200, "late@example.com"],
    [1850, "slow@example.org"],
  ] as const) {
    const late = (
      await api("POST", "/api/v1/payments/create", {
        amount,
        currency: "usd",
        customerEmail,
        successUrl: "https://harbour.example/thanks",
        cancelUrl: "https://harbour.example/cart",
      })
    ).data;
    await api("DELETE", `/api/v1/payments/${late.transactionId}`);
    await simulate(`/sandbox/sessions/${late.sessionId}/complete`, { outcome: "succeeded" });
  }
  await sleep(1500);
  // Spread the month out: the API stamps everything now, so move each payment to its day.
  for (const payment of created) {
    if (payment.id === featured.id || payment.daysAgo === 0) continue;
    await services.db.query(
      "UPDATE payments SET created_at = created_at - make_interval(days => $2), completed_at = completed_at - make_interval(days => $2) WHERE id = $1",
      [payment.id, payment.daysAgo],
    );
  }

  const owner = (
    await admin(`/admin/v1/groups/${group.groupId}/users`, { email: "maya@harbour.example", role: "owner" })
  ).data;
  const operator = (await admin("/admin/v1/operators", { email: "ops@checkout.example" })).data;

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  // The merchant's logo, drawn by the browser itself.
  const studio = await browser.newPage({ viewport: { width: 200, height: 200 } });
  await studio.setContent(
    `<div id="logo" style="width:96px;height:96px;border-radius:50%;background:#7a4a21;color:#fff;display:flex;align-items:center;justify-content:center;font:700 40px system-ui">HC</div>`,
  );
  const logo = await studio.locator("#logo").screenshot({ omitBackground: true });
  await studio.close();
  await call("/api/v1/branding", {
    method: "PUT",
    headers: keys,
    body: {
      displayName: "Harbour Coffee",
      brandColor: "#7a4a21",
      logo: `data:image/png;base64,${logo.toString("base64")}`,
      receipts: true,
      replyTo: "hello@harbour.example",
    },
  });
  const links = [
    { name: "Ethiopia Yirgacheffe 1 kg", currency: "usd", amount: 3400, description: "Roasted this week" },
    { name: "Tip the baristas", currency: "usd", minAmount: 200, maxAmount: 5000 },
    { name: "Cupping class, Saturday", currency: "cad", amount: 4500 },
  ];
  const made: { linkId: string; url: string }[] = [];
  for (const link of links) made.push((await api("POST", "/api/v1/payment-links", link)).data as never);
  const phone = await (
    await browser.newContext({
      viewport: { width: 390, height: 780 },
      isMobile: true,
      javaScriptEnabled: false,
    })
  ).newPage();
  const tip = made[1] as { url: string };
  await phone.goto(`${url}${new URL(tip.url).pathname}`);
  await phone.fill("#amount", "5,00");
  await phone.fill("#email", "ana@example.com");
  await Promise.all([phone.waitForEvent("load"), phone.click("button[type=submit]")]);
  await phone.screenshot({ path: `${OUT}/payment-link-error.png`, fullPage: true });
  await phone.goto(`${url}${new URL((made[0] as { url: string }).url).pathname}`);
  await phone.fill("#email", "ana@example.com");
  await phone.screenshot({ path: `${OUT}/payment-link.png`, fullPage: true });
  await Promise.all([phone.waitForEvent("load"), phone.click("button[type=submit]")]);
  await phone.fill("#card", "4242 4242 4242 4242");
  // The way back leads to the group's SafeSite, which is not this machine: the same page here.
  await Promise.all([
    phone.waitForURL(/\/return\//, { waitUntil: "commit" }).catch(() => {}),
    phone.click("button[type=submit]"),
  ]);
  await sleep(500);
  const [paid] = await services.db.query<{ link_token: string }>(
    "SELECT link_token FROM payments WHERE payment_link_id = $1",
    [(made[0] as { linkId: string }).linkId],
  );
  const token = paid?.link_token;
  await phone.goto(`${url}/done/${token}`);
  await phone.screenshot({ path: `${OUT}/customer-done.png`, fullPage: true });
  // A payment the customer left unpaid: its /done page leads back to the open checkout.
  const unpaid = (
    await api("POST", "/api/v1/payments/create", {
      amount: 1800,
      currency: "usd",
      customerEmail: "li@example.com",
      description: "Espresso blend 500 g",
      successUrl: "https://harbour.example/thanks",
      cancelUrl: "https://harbour.example/cart",
    })
  ).data;
  await phone.goto(`${url}/done/${new URL(unpaid.paymentUrl as string).pathname.split("/").pop()}`);
  await phone.screenshot({ path: `${OUT}/customer-not-paid.png`, fullPage: true });
  // The receipt the link's customer was e-mailed (MAIL_DIR), its logo inlined as the mail carries it.
  const mailDir = join(dataDir, "mail");
  let receipt: string | undefined;
  for (let tries = 0; tries < 50 && !receipt; tries++) {
    const files = await readdir(mailDir).catch(() => [] as string[]);
    for (const file of files) {
      const mail = await simpleParser(await readFile(join(mailDir, file)));
      if (mail.text?.includes("Ethiopia Yirgacheffe")) receipt = String(mail.html);
    }
    if (!receipt) await sleep(200);
  }
  if (!receipt) throw new Error("no receipt e-mail in MAIL_DIR");
  const mailView = await browser.newPage({ viewport: { width: 520, height: 600 } });
  await mailView.setContent(receipt);
  await mailView.screenshot({ path: `${OUT}/receipt.png`, fullPage: true });
  await mailView.close();
  const accept = async (page: Page, inviteUrl: string) => {
    await page.goto(`${url}${new URL(inviteUrl).pathname}`);
    await page.fill('input[name="password"]', PASSWORD);
    await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")]);
  };
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    timezoneId: "America/Toronto",
    locale: "en-CA",
  });
  const merchant = await context.newPage();
  await accept(merchant, owner.inviteUrl as string);
  await merchant.goto(`${url}/dashboard`);
  await merchant.screenshot({ path: `${OUT}/dashboard-overview.png`, fullPage: true });
  await merchant.goto(`${url}/dashboard/payments/${featured.id}`);
  await merchant.screenshot({ path: `${OUT}/dashboard-payment.png`, fullPage: true });
  await merchant.goto(`${url}/dashboard/payment-links`);
  await merchant.screenshot({ path: `${OUT}/dashboard-payment-links.png`, fullPage: true });
  await merchant.goto(`${url}/dashboard/branding`);
  await merchant.screenshot({ path: `${OUT}/dashboard-branding.png`, fullPage: true });
  await merchant.goto(`${url}/dashboard/disputes`);
  await merchant.screenshot({ path: `${OUT}/dashboard-disputes.png`, fullPage: true });
  await merchant.goto(`${url}/dashboard/disputes/${inbox[0]?.disputeId}`);
  await merchant.fill(
    "#evidence-productDescription",
    "Hand-thrown stoneware mug, 350 ml, shipped 2 November",
  );
  await merchant.fill("#evidence-shippingTracking", "Canada Post 7023 4501 8839 1204");
  await merchant.check("#evidence-form input[name=submit]");
  await Promise.all([
    merchant.waitForLoadState("load"),
    merchant.click("#evidence-form button[type=submit]"),
  ]);
  await merchant.screenshot({ path: `${OUT}/dashboard-dispute.png`, fullPage: true });
  const merchantPhone = await (
    await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      timezoneId: "America/Toronto",
      locale: "en-CA",
    })
  ).newPage();
  await merchantPhone.goto(`${url}/dashboard/login`);
  await merchantPhone.context().addCookies(await context.cookies());
  await merchantPhone.goto(`${url}/dashboard/payments`);
  await merchantPhone.screenshot({ path: `${OUT}/dashboard-payments-phone.png` });
  await merchant.goto(`${url}/dashboard/developers`);
  await merchant.locator("#endpoints").screenshot({ path: `${OUT}/dashboard-endpoints.png` });
  // The erasure's confirmation step, as an owner sees it before anything is erased.
  await merchant.goto(`${url}/dashboard/privacy`);
  await merchant.fill("#erase-email", "chloe@example.net");
  await Promise.all([merchant.waitForLoadState("load"), merchant.click("#erase-ask button[type=submit]")]);
  await merchant.screenshot({ path: `${OUT}/dashboard-privacy.png`, fullPage: true });
  const console = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await accept(console, operator.inviteUrl as string);
  await console.goto(`${url}/operator/reconciliation`);
  await console.screenshot({ path: `${OUT}/operator-reconciliation.png`, fullPage: true });
  await console.goto(`${url}/operator/health`);
  await console.screenshot({ path: `${OUT}/console-processors.png`, fullPage: true });
  await browser.close();
  process.stdout.write(
    `wrote ${OUT}/dashboard-overview.png, dashboard-payment.png, operator-reconciliation.png, dashboard-payment-links.png, dashboard-branding.png, dashboard-privacy.png, dashboard-endpoints.png, dashboard-disputes.png, dashboard-dispute.png, dashboard-payments-phone.png, payment-link.png, payment-link-error.png, customer-done.png, customer-not-paid.png, receipt.png, console-processors.png\n`,
  );
} finally {
  await running.close();
  receiver.close();
  await rm(dataDir, { recursive: true, force: true });
}
