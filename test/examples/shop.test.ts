import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Checkout } from "@checkout-service/client";
import type { FastifyInstance } from "fastify";
import { buildShop, type Order } from "../../examples/shop/shop.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("the example shop, end to end through the client and the sandbox", () => {
  let service: TestService;
  let group: TestGroup;
  let shop: FastifyInstance;
  let shopUrl = "";
  let checkout: Checkout;

  before(async () => {
    // The shop is on loopback: the service is told to deliver there (any port of 127.0.0.1).
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
    group = await service.createGroup({ name: "Mug shop" });
    checkout = new Checkout({ baseUrl: service.url, publicKey: group.publicKey, secretKey: group.secretKey });
    shop = buildShop({
      checkout,
      webhookSecret: group.webhookSecret,
      publicUrl: () => shopUrl,
      sendWebhookUrl: true,
    });
    await shop.listen({ port: 0, host: "127.0.0.1" });
    shopUrl = `http://127.0.0.1:${(shop.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await shop.close();
    await service.close();
  });

  const orders = async (): Promise<Order[]> => (await fetch(`${shopUrl}/orders`)).json() as Promise<Order[]>;

  it("buys a mug: payment link, sandbox card, verified webhook, success page that read the payment", async () => {
    const buy = await fetch(`${shopUrl}/buy`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=jane%40example.com",
      redirect: "manual",
    });
    assert.equal(buy.status, 303);
    const paymentUrl = buy.headers.get("location") ?? "";
    assert.match(paymentUrl, /\/pay\//);
    const [order] = await orders();
    assert.ok(order);
    assert.equal(order.status, "awaiting_payment");

    // The customer follows the link to the processor's page and pays with the test card.
    const link = await fetch(paymentUrl, { redirect: "manual" });
    assert.equal(link.status, 303);
    const processorPage = link.headers.get("location") ?? "";
    const paid = await fetch(processorPage, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "card=4242424242424242",
      redirect: "manual",
    });
    assert.ok(paid.status < 400, `the sandbox page answered ${paid.status}`);

    const settled = await waitFor(async () => {
      const [current] = await orders();
      return current?.status === "paid" ? current : undefined;
    });
    assert.equal(settled.webhooksApplied, 1);
    const success = await (await fetch(`${shopUrl}/success/${order.transactionId}`)).text();
    assert.match(success, /id="status">Paid 19\.99 USD/);
    assert.equal((await checkout.payments.get(order.transactionId)).status, "succeeded");
  });

  it("applies a resent webhook once (same webhook-id), and refuses a forged one", async () => {
    const [order] = await orders();
    assert.ok(order);
    const [event] = await checkout.events.list(order.transactionId);
    assert.ok(event);
    await checkout.events.resend(order.transactionId, event.eventId);
    await waitFor(async () => {
      const [again] = await checkout.events.list(order.transactionId);
      return again?.deliveries.length === 2 &&
        again.deliveries.every((delivery) => delivery.state === "succeeded")
        ? true
        : undefined;
    });
    assert.equal((await orders())[0]?.webhooksApplied, 1, "the resend was recognised by its webhook-id");

    const forged = await fetch(`${shopUrl}/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: JSON.stringify({ event: "payment.refunded", transactionId: order.transactionId }),
    });
    assert.equal(forged.status, 400);
    assert.equal((await orders())[0]?.status, "paid");
  });
});
