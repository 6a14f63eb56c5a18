import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Stripe from "stripe";
import { startTestService, type TestService } from "../helpers/service.ts";

describe("the sandbox processor's defaults are safe", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ HOST: "0.0.0.0" });
  });
  after(() => service.close());

  const sessionsApi = (key: string, body: Record<string, string>) =>
    fetch(`${service.sandboxUrl}/v1/checkout/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
  const session = (overrides: Record<string, string> = {}) => ({
    mode: "payment",
    "line_items[0][quantity]": "1",
    "line_items[0][price_data][currency]": "usd",
    "line_items[0][price_data][unit_amount]": "100",
    "line_items[0][price_data][product_data][name]": "x",
    success_url: "https://shop.example.com/ok",
    cancel_url: "https://shop.example.com/no",
    ...overrides,
  });

  it("listens on loopback even when the service listens everywhere", () => {
    assert.match(service.url, /^http:\/\/0\.0\.0\.0:/);
    assert.match(service.sandboxUrl ?? "", /^http:\/\/127\.0\.0\.1:/);
  });

  it("accepts only its account's secret key", async () => {
    assert.equal((await sessionsApi("sk_test_anyone", session())).status, 401);
    assert.equal(
      (await sessionsApi(service.config.processorSettings.stripe?.STRIPE_SECRET_KEY as string, session()))
        .status,
      200,
    );
  });

  it("accepts only http(s) redirect URLs, so its page never links to javascript:", async () => {
    const key = service.config.processorSettings.stripe?.STRIPE_SECRET_KEY as string;
    for (const overrides of [{ cancel_url: "javascript:alert(1)" }, { success_url: "data:text/html,x" }]) {
      const response = await sessionsApi(key, session(overrides));
      assert.equal(response.status, 400, JSON.stringify(overrides));
    }
  });

  it("signs events with a secret of this installation, never a well-known one", async () => {
    const payload = JSON.stringify({
      id: "evt_forged",
      object: "event",
      type: "checkout.session.completed",
      data: { object: { id: "cs_x", object: "checkout.session", payment_status: "paid" } },
    });
    const forged = await service.request("POST", "/processor/webhooks/stripe", {
      rawBody: payload,
      headers: {
        "content-type": "application/json",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: "whsec_sandbox_default_secret",
        }),
      },
    });
    assert.equal(forged.status, 400);
    const [row] = await service.services.db.query<{ value: string }>(
      "SELECT value FROM settings WHERE name = 'sandbox_webhook_secret'",
    );
    assert.match(row?.value ?? "", /^sealed\.v1\./, "sealed at rest");
    assert.match(service.services.box.open(row?.value ?? ""), /^whsec_[A-Za-z0-9+/=]{40,}$/);
  });
});
