// An event may change a payment only if it names that payment's own session or payment intent
// and its amount and currency match (docs/api.md, "Processor events"). Metadata is written by whoever creates the
// session, so it can only suggest which payment an event is about.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Stripe from "stripe";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const WEBHOOK_SECRET = "whsec_matching_test_secret";

describe("processor events are checked against the payment they name", () => {
  let service: TestService;
  let victim: TestGroup;
  let receiver: Receiver;
  let stripe: Stripe;
  before(async () => {
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    service = await startTestService({
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host,
    });
    victim = await service.createGroup({ name: "Victim" });
    // Anyone with a key to the same processor account (another integration sharing it).
    stripe = service.processorClient();
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const read = async (id: string) => (await service.api(victim, "GET", `/api/v1/payments/${id}`)).body.data;
  const queue = async () => (await service.admin("GET", "/admin/v1/reconciliation")).body.data;
  const signed = (type: string, object: Record<string, unknown>) => {
    const payload = JSON.stringify({
      id: `evt_${type}_${Date.now()}_${Math.random()}`,
      object: "event",
      type,
      data: { object },
    });
    return service.request("POST", "/processor/webhooks/stripe", {
      rawBody: payload,
      headers: {
        "content-type": "application/json",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
    });
  };

  it("a 1-cent session whose metadata names a 999,999.99 payment does not pay it", async () => {
    const target = (
      await service.createPayment(victim, { amount: 99999999, webhookUrl: `${receiver.url}/hook` })
    ).body.data;
    const forged = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [
        { quantity: 1, price_data: { currency: "usd", unit_amount: 1, product_data: { name: "x" } } },
      ],
      success_url: "https://attacker.example.com/ok",
      cancel_url: "https://attacker.example.com/no",
      metadata: { transactionId: target.transactionId },
      payment_intent_data: { metadata: { transactionId: target.transactionId } },
    });
    const paid = await service.sandboxPost(`/sandbox/sessions/${forged.id}/complete`, {
      outcome: "succeeded",
    });
    assert.equal(paid.status, 200);

    const listed = await waitFor(async () =>
      (await queue()).find(
        (item: { kind: string; transactionId: string }) =>
          item.kind === "processor_mismatch" && item.transactionId === target.transactionId,
      ),
    );
    assert.match(listed.reason, /checkout .* is not this payment's/);
    assert.equal(listed.groupId, victim.groupId);
    await sleep(200);
    assert.equal((await read(target.transactionId)).status, "processing");
    assert.equal(receiver.at("/hook").length, 0, "the merchant was told nothing");
  });

  it("a refund or dispute naming a payment intent that is not the payment's changes nothing", async () => {
    const target = (await service.createPayment(victim, { amount: 5000 })).body.data;
    for (const [type, object] of [
      [
        "charge.refunded",
        {
          id: "ch_x",
          object: "charge",
          amount: 5000,
          amount_refunded: 5000,
          currency: "usd",
          payment_intent: "pi_someone_elses",
          metadata: { transactionId: target.transactionId },
        },
      ],
      [
        "charge.dispute.created",
        {
          id: "dp_x",
          object: "dispute",
          currency: "usd",
          status: "needs_response",
          payment_intent: "pi_someone_elses",
        },
      ],
    ] as const) {
      assert.equal((await signed(type, object)).status, 200, type);
    }
    assert.equal((await read(target.transactionId)).status, "processing");
    assert.ok(
      (await queue()).some(
        (item: { kind: string; transactionId: string; reason: string }) =>
          item.kind === "processor_mismatch" &&
          item.transactionId === target.transactionId &&
          /processor payment pi_someone_elses is not this payment's/.test(item.reason),
      ),
    );
  });

  it("the payment's own session with another amount or currency changes nothing", async () => {
    const target = (await service.createPayment(victim, { amount: 2500 })).body.data;
    const completed = (amount: number, currency: string) =>
      signed("checkout.session.completed", {
        id: target.sessionId,
        object: "checkout.session",
        payment_status: "paid",
        status: "complete",
        payment_intent: "pi_amount_check",
        amount_total: amount,
        currency,
        metadata: { transactionId: target.transactionId },
      });
    await completed(1, "usd");
    await completed(2500, "cad");
    assert.equal((await read(target.transactionId)).status, "processing");
    const reasons = (await queue())
      .filter((item: { transactionId: string }) => item.transactionId === target.transactionId)
      .map((item: { reason: string }) => item.reason);
    assert.ok(reasons.some((reason: string) => /amount 1 differs/.test(reason)));
    assert.ok(reasons.some((reason: string) => /currency cad differs/.test(reason)));
    await completed(2500, "usd");
    assert.equal((await read(target.transactionId)).status, "succeeded", "the matching event still applies");
  });
});
