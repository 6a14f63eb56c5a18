// The sandbox keeps its state with the service's data (a restart forgets nothing),
// makes its own API key per installation, and misbehaves on request (POST /sandbox/faults).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Stripe from "stripe";
import { stripeSignature } from "../../src/sandbox/stripe/events.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("the sandbox across a restart", () => {
  it("still knows earlier payments and refunds, and refunds them again", async () => {
    const { db } = await createTestDatabase();
    const kept = { ...db, close: async () => {} };
    const first = await startTestService({}, { db: kept });
    const group = await first.createGroup();
    const created = (await first.createPayment(group, { amount: 1000 })).body.data;
    await first.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await waitFor(async () => {
      const p = (await first.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
      return p.status === "succeeded" ? p : undefined;
    });
    assert.equal(
      (await first.api(group, "POST", `/api/v1/payments/${paid.id}/refunds`, { amount: 300 })).status,
      201,
    );
    await first.close();

    const second = await startTestService({}, { db });
    try {
      const stripe = second.processorClient();
      const session = await stripe.checkout.sessions.retrieve(created.sessionId);
      assert.equal(session.payment_status, "paid");
      assert.equal(
        (await stripe.refunds.list({ payment_intent: paid.processorPaymentIntentId })).data.length,
        1,
      );
      const again = await second.api(group, "POST", `/api/v1/payments/${paid.id}/refunds`, { amount: 200 });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.body.data.status, "succeeded");
      const listed = await stripe.refunds.list({ payment_intent: paid.processorPaymentIntentId });
      assert.deepEqual(listed.data.map((refund) => refund.amount).sort(), [200, 300]);
    } finally {
      await second.close();
    }
  });

  it("makes its API key once per installation, and accepts only that key", async () => {
    const { db } = await createTestDatabase();
    const kept = { ...db, close: async () => {} };
    const keyOf = async (service: TestService) => {
      const [row] = await service.services.db.query<{ value: string }>(
        "SELECT value FROM settings WHERE name = 'sandbox_api_key'",
      );
      return row && service.services.box.open(row.value);
    };
    const first = await startTestService({ STRIPE_SECRET_KEY: "" }, { db: kept });
    const key = await keyOf(first);
    assert.match(key ?? "", /^sk_test_/);
    const answer = (bearer: string) =>
      fetch(`${first.sandboxUrl}/v1/checkout/sessions/cs_none`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    assert.equal((await answer(key as string)).status, 404);
    assert.equal((await answer("sk_test_suite")).status, 401);
    await first.close();
    const second = await startTestService({ STRIPE_SECRET_KEY: "" }, { db });
    try {
      assert.equal(await keyOf(second), key, "the same key after a restart");
    } finally {
      await second.close();
    }
  });
});

describe("sandbox faults and lost events", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const sdk = () => {
    const sandbox = new URL(service.sandboxUrl as string);
    return new Stripe("sk_test_suite", {
      host: sandbox.hostname,
      port: sandbox.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
  };

  it("refuses a fault it does not know, and forgets faults on DELETE", async () => {
    for (const body of [
      {},
      { refunds: { mode: "explode", count: 1 } },
      { refunds: { mode: "delay", count: 0 } },
    ]) {
      assert.equal((await service.sandboxPost("/sandbox/faults", body)).status, 400, JSON.stringify(body));
    }
    assert.equal(
      (await service.sandboxPost("/sandbox/faults", { refunds: { mode: "error_500", count: 2 } })).status,
      200,
    );
    const outage = await service.sandboxPost("/sandbox/faults", { checkouts: { mode: "outage" } });
    assert.deepEqual(outage.body.checkouts, { mode: "outage", until: "cleared" }, "no count for what lasts");
    assert.deepEqual((await service.sandboxDelete("/sandbox/faults")).body, {
      checkouts: null,
      refunds: null,
      disputes: null,
    });
  });

  it("error_500 refuses without carrying out; the same key then carries it out once", async () => {
    const group = await service.createGroup();
    const created = (await service.createPayment(group, { amount: 900 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const intent = (await sdk().checkout.sessions.retrieve(created.sessionId)).payment_intent as string;
    await service.sandboxPost("/sandbox/faults", { refunds: { mode: "error_500", count: 1 } });
    const create = () =>
      sdk().refunds.create({ payment_intent: intent, amount: 100 }, { idempotencyKey: "same-key" });
    await assert.rejects(create(), (error: Error) => error instanceof Stripe.errors.StripeAPIError);
    assert.equal((await sdk().refunds.list({ payment_intent: intent })).data.length, 0);
    const first = await create();
    const replay = await create();
    assert.equal(replay.id, first.id);
    assert.equal((await sdk().refunds.list({ payment_intent: intent })).data.length, 1);
  });

  it("drop_response carries out the refund and closes the connection; a repeat replays it", async () => {
    const group = await service.createGroup();
    const created = (await service.createPayment(group, { amount: 900 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const intent = (await sdk().checkout.sessions.retrieve(created.sessionId)).payment_intent as string;
    // Two: the SDK tries a closed connection once more even with retries off.
    await service.sandboxPost("/sandbox/faults", { refunds: { mode: "drop_response", count: 2 } });
    const create = () =>
      sdk().refunds.create({ payment_intent: intent, amount: 100 }, { idempotencyKey: "dropped" });
    await assert.rejects(create(), (error: Error) => error instanceof Stripe.errors.StripeConnectionError);
    assert.equal((await sdk().refunds.list({ payment_intent: intent })).data.length, 1, "carried out");
    await create();
    assert.equal(
      (await sdk().refunds.list({ payment_intent: intent })).data.length,
      1,
      "replayed, not repeated",
    );
  });

  it("forgets a session on DELETE: retrieve and expire answer 404 resource_missing", async () => {
    const group = await service.createGroup();
    const created = (await service.createPayment(group)).body.data;
    assert.equal((await service.sandboxDelete(`/sandbox/sessions/${created.sessionId}`)).status, 200);
    await assert.rejects(
      sdk().checkout.sessions.retrieve(created.sessionId),
      (error: Stripe.errors.StripeError) => {
        return error.statusCode === 404 && error.code === "resource_missing";
      },
    );
    await assert.rejects(
      sdk().checkout.sessions.expire(created.sessionId),
      (error: Stripe.errors.StripeError) => {
        return error.statusCode === 404 && error.code === "resource_missing";
      },
    );
    assert.equal((await service.sandboxDelete(`/sandbox/sessions/${created.sessionId}`)).status, 404);
  });

  it("signs events as Stripe does: the official SDK verifies them", () => {
    const payload = JSON.stringify({ id: "evt_1", object: "event", type: "x", data: { object: {} } });
    const event = Stripe.webhooks.constructEvent(payload, stripeSignature(payload, "whsec_x"), "whsec_x");
    assert.equal(event.id, "evt_1");
    assert.throws(() =>
      Stripe.webhooks.constructEvent(payload, stripeSignature(payload, "whsec_y"), "whsec_x"),
    );
  });
});
