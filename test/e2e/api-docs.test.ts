// The API explorer at /docs in real Chromium: it loads the document clients use, breaks no rule of
// its Content-Security-Policy, and offers requests a merchant would send.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { REQUEST_EXAMPLES } from "../../src/openapi/examples.ts";
import { launchChromium, needsChromium } from "../helpers/requirements.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

describe("the API explorer at /docs", { skip: needsChromium() }, () => {
  let service: TestService;
  let browser: Browser;
  before(async () => {
    service = await startTestService();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it("loads /openapi.json with no console error, and fills in a real payment to try", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    const documents: string[] = [];
    page.on("request", (request) => {
      if (/json$/.test(new URL(request.url()).pathname)) documents.push(new URL(request.url()).pathname);
    });
    await page.goto(`${service.url}/docs`);
    await page.click("#operations-payments-createPayment button.opblock-summary-control");
    await page.click("#operations-payments-createPayment button.try-out__btn");
    const body = await page.inputValue("#operations-payments-createPayment textarea.body-param__text");
    assert.deepEqual(JSON.parse(body), REQUEST_EXAMPLES.createPayment);
    assert.deepEqual(documents, ["/openapi.json"]);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
