import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { clickAndLoad, launchChromium, needsChromium } from "../helpers/requirements.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("a customer in a real browser", { skip: needsChromium() }, () => {
  let merchant: Server;
  let merchantUrl: string;
  let service: TestService;
  let group: TestGroup;
  let browser: Browser;

  before(async () => {
    // The merchant's own site, on loopback, exempted from the unreachable-host rule for this test.
    merchant = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<h1 id="merchant">Merchant page ${request.url}</h1>`);
    });
    await new Promise<void>((resolve) => merchant.listen(0, "127.0.0.1", resolve));
    const { port } = merchant.address() as AddressInfo;
    merchantUrl = `http://127.0.0.1:${port}`;
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${port}` });
    group = await service.createGroup();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    merchant?.close();
  });

  const newPayment = async () =>
    (
      await service.createPayment(group, {
        successUrl: `${merchantUrl}/thanks/{transactionId}`,
        cancelUrl: `${merchantUrl}/cart`,
      })
    ).body.data;

  it("pays with 4242 4242 4242 4242 and lands on the merchant's success URL with the payment succeeded", async () => {
    const payment = await newPayment();
    const page = await browser.newPage();
    await page.goto(payment.paymentUrl);
    assert.ok(page.url().startsWith(`${service.sandboxUrl}/checkout/`), page.url());
    await page.fill("#card", "4242 4242 4242 4242");
    await Promise.all([page.waitForURL(`${merchantUrl}/thanks/**`), page.click("button[type=submit]")]);
    assert.equal(page.url(), `${merchantUrl}/thanks/${payment.transactionId}`);
    assert.match((await page.textContent("#merchant")) ?? "", /Merchant page/);
    const read = await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}`);
    assert.equal(read.body.data.status, "succeeded");
    await page.close();
  });

  it("declines 4000 0000 0000 0002 and stays on the pay page with an error", async () => {
    const payment = await newPayment();
    const page = await browser.newPage();
    await page.goto(payment.paymentUrl);
    const checkoutPage = page.url();
    await page.fill("#card", "4000 0000 0000 0002");
    await clickAndLoad(page, () => page.click("button[type=submit]"));
    assert.equal(page.url(), checkoutPage);
    assert.match((await page.textContent("[role=alert]")) ?? "", /declined/i);
    // The back link returns the customer, unpaid, to the merchant's cancel URL.
    await Promise.all([page.waitForURL(`${merchantUrl}/cart`), page.click("#back")]);
    await page.close();
  });

  it("the payment link refuses to be framed", async () => {
    const payment = await newPayment();
    const page = await browser.newPage();
    // A control frame of a page that allows framing proves frames do load here.
    await page.setContent(
      `<iframe name="checkout" src="${payment.paymentUrl}"></iframe><iframe name="control" src="${merchantUrl}/framed"></iframe>`,
    );
    const control = page.frame({ name: "control" });
    await control?.waitForSelector("#merchant");
    assert.match((await control?.textContent("#merchant")) ?? "", /framed/);
    const checkout = page.frame({ name: "checkout" });
    const framedText = checkout
      ? await checkout.evaluate(() => document.body?.textContent ?? "").catch(() => "")
      : "";
    assert.ok(
      !/Sandbox checkout|Card number/.test(framedText),
      "checkout content must not render in a frame",
    );
    await page.close();
  });
});
