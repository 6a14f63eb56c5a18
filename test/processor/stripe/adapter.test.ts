import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import Stripe from "stripe";
import { ProcessorRefusedError } from "../../../src/processor/port.ts";
import { stripeAdapter } from "../../../src/processor/stripe/adapter.ts";
import { UndiciHttpClient } from "../../../src/processor/stripe/undici-http-client.ts";

describe("the Stripe adapter's calls", () => {
  let server: Server;
  let apiUrl: string;
  const userAgents: (string | string[] | undefined)[] = [];
  before(async () => {
    // Refuses every request the way Stripe refuses a bad one: 400, not retried by the SDK.
    server = createServer((request, response) => {
      userAgents.push(request.headers["x-stripe-client-user-agent"]);
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { type: "invalid_request_error", message: "amount is too small" } }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const checkout = {
    transactionId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
    amount: 1,
    currency: "usd",
    customerEmail: "a@example.com",
    returnUrl: "https://pay.example.com/return/x",
    expiresAt: new Date(Date.now() + 3_600_000),
    idempotencyKey: "checkout-session-unit",
    lineItemName: "Payment",
  } as const;

  it("start without the SDK's call-site stack, and leave the stack limit as it was, also when refused", async () => {
    const processor = stripeAdapter({ secretKey: "sk_test_unit", webhookSecret: "whsec_unit", apiUrl });
    const limit = Error.stackTraceLimit;
    const refused = await processor.createCheckout(checkout).then(
      () => assert.fail("the processor refused it"),
      (error: unknown) => error,
    );
    assert.equal(Error.stackTraceLimit, limit);
    assert.ok(refused instanceof ProcessorRefusedError);
    assert.ok(refused.cause instanceof Stripe.errors.StripeInvalidRequestError);
    assert.match(refused.message, /amount is too small/);
    assert.match(refused.stack ?? "", /\n\s+at /, "our own error keeps its stack");
  });

  it("send the client user agent the SDK builds, kept from the first request for every later one", async () => {
    const processor = stripeAdapter({ secretKey: "sk_test_unit", webhookSecret: "whsec_unit", apiUrl });
    const expected = await new Promise<string>((resolve) =>
      new Stripe("sk_test_unit", {
        telemetry: false,
        httpClient: new UndiciHttpClient(1000),
      }).getClientUserAgent(resolve),
    );
    assert.match(expected, /"bindings_version"/);
    userAgents.length = 0;
    for (let call = 0; call < 3; call++) await processor.createCheckout(checkout).catch(() => undefined);
    assert.deepEqual(userAgents, [expected, expected, expected]);
  });
});
