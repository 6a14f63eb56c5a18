import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Stripe from "stripe";
import { recordProcessorEvent } from "../../src/payments/processor-events/store.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

const WEBHOOK_SECRET = "whsec_events_test_secret";
let counter = 0;

function event(type: string, object: Record<string, unknown>): Record<string, unknown> {
  counter += 1;
  return {
    id: `evt_test_${Date.now()}_${counter}`,
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object },
  };
}

describe("processor event intake", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
    group = await service.createGroup();
  });
  after(() => service.close());

  const post = (payload: string, signature?: string) =>
    service.request("POST", "/processor/webhooks/stripe", {
      rawBody: payload,
      headers: {
        "content-type": "application/json",
        ...(signature !== undefined && { "stripe-signature": signature }),
      },
    });
  const send = (body: Record<string, unknown>, options: { secret?: string; timestamp?: number } = {}) => {
    const payload = JSON.stringify(body);
    return post(
      payload,
      Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: options.secret ?? WEBHOOK_SECRET,
        ...(options.timestamp !== undefined && { timestamp: options.timestamp }),
      }),
    );
  };
  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const newPayment = async () => (await service.createPayment(group, { amount: 1000 })).body.data;
  const completed = (
    payment: { transactionId: string; sessionId: string },
    paymentIntent = `pi_test_${payment.transactionId.slice(0, 8)}`,
  ) =>
    event("checkout.session.completed", {
      id: payment.sessionId,
      object: "checkout.session",
      payment_status: "paid",
      status: "complete",
      payment_intent: paymentIntent,
      metadata: { transactionId: payment.transactionId },
    });

  it("applies a correctly signed event", async () => {
    const payment = await newPayment();
    const response = await send(completed(payment));
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { received: true });
    assert.equal((await read(payment.transactionId)).status, "succeeded");
  });

  it("rejects tampered, wrongly signed, stale and unsigned events with 400, changing nothing", async () => {
    const payment = await newPayment();
    const body = completed(payment);
    const payload = JSON.stringify(body);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const attempts = [
      post(payload.replace(payment.transactionId, "00000000-0000-4000-8000-000000000000"), signature),
      post(`${payload} `, signature),
      send(body, { secret: "whsec_someone_else" }),
      send(body, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      post(payload),
      post(payload, "t=1,v1=deadbeef"),
      post(payload, ""),
    ];
    for (const response of await Promise.all(attempts)) {
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, "INVALID_REQUEST");
    }
    assert.equal((await read(payment.transactionId)).status, "processing");
    const recorded = await service.services.db.query("SELECT 1 FROM processor_events WHERE id = $1", [
      body.id,
    ]);
    assert.equal(recorded.length, 0);
  });

  it("applies a replayed event once", async () => {
    const payment = await newPayment();
    const refund = event("charge.refunded", {
      id: "ch_1",
      object: "charge",
      amount: 1000,
      amount_refunded: 400,
      payment_intent: "pi_replay",
      metadata: { transactionId: payment.transactionId },
    });
    await send(completed(payment, "pi_replay"));
    const responses = await Promise.all(Array.from({ length: 5 }, () => send(refund)));
    for (const response of responses) assert.equal(response.status, 200);
    const changes = await service.services.db.query<{ to_status: string }>(
      "SELECT to_status FROM payment_status_changes WHERE payment_id = $1 ORDER BY id",
      [payment.transactionId],
    );
    assert.deepEqual(
      changes.map((row) => row.to_status),
      ["processing", "succeeded", "partially_refunded"],
    );
  });

  it("ends in the right state when events arrive out of order", async () => {
    const payment = await newPayment();
    const pi = "pi_out_of_order";
    // The processor has attached this intent to the payment's session (its events are what is late).
    const session = service.sandbox?.state.sessions.get(payment.sessionId);
    assert.ok(session);
    session.payment_intent = pi;
    const refund = (amountRefunded: number) =>
      event("charge.refunded", {
        id: "ch_2",
        object: "charge",
        amount: 1000,
        amount_refunded: amountRefunded,
        payment_intent: pi,
        metadata: { transactionId: payment.transactionId },
      });
    // The full refund arrives first, then the earlier partial one, then the completion.
    await send(refund(1000));
    await send(refund(300));
    await send(completed(payment, pi));
    const final = await read(payment.transactionId);
    assert.equal(final.status, "refunded");
    assert.equal(final.processorPaymentIntentId, pi);
    assert.ok(final.completedAt);
  });

  it("handles a dispute closed before it was opened", async () => {
    const payment = await newPayment();
    const pi = "pi_dispute_order";
    await send(completed(payment, pi));
    await send(
      event("charge.dispute.closed", { id: "dp_1", object: "dispute", status: "lost", payment_intent: pi }),
    );
    await send(
      event("charge.dispute.created", {
        id: "dp_1",
        object: "dispute",
        status: "needs_response",
        payment_intent: pi,
      }),
    );
    assert.equal((await read(payment.transactionId)).status, "dispute_lost");
  });

  it("maps async payment success and failure", async () => {
    const ok = await newPayment();
    await send(
      event("checkout.session.async_payment_succeeded", {
        id: ok.sessionId,
        object: "checkout.session",
        payment_status: "paid",
        payment_intent: "pi_async",
        metadata: { transactionId: ok.transactionId },
      }),
    );
    assert.equal((await read(ok.transactionId)).status, "succeeded");
    const bad = await newPayment();
    await send(
      event("checkout.session.async_payment_failed", {
        id: bad.sessionId,
        object: "checkout.session",
        payment_status: "unpaid",
        metadata: { transactionId: bad.transactionId },
      }),
    );
    assert.equal((await read(bad.transactionId)).status, "failed");
    // A session completed with payment still pending (async methods) changes nothing yet.
    const waiting = await newPayment();
    await send({
      ...completed(waiting),
      data: {
        object: {
          id: waiting.sessionId,
          payment_status: "unpaid",
          metadata: { transactionId: waiting.transactionId },
        },
      },
    });
    assert.equal((await read(waiting.transactionId)).status, "processing");
  });

  it("keys replays by processor and event id: another processor's event of the same id is its own", async () => {
    const record = (processor: string, id: string) =>
      recordProcessorEvent(service.services.db, {
        processor,
        id,
        type: "x",
        paymentId: null,
        mismatch: null,
      });
    assert.equal(await record("stripe", "evt_shared_1"), true);
    assert.equal(await record("square", "evt_shared_1"), true, "the same id from another processor");
    assert.equal(await record("stripe", "evt_shared_1"), false, "a replay");
    assert.equal(await record("square", "evt_shared_1"), false, "a replay");
  });

  it("acknowledges events for unknown payments and event types it does not use", async () => {
    assert.equal((await send(event("customer.created", { id: "cus_1" }))).status, 200);
    const unknown = await send(
      event("checkout.session.completed", {
        id: "cs_unknown",
        payment_status: "paid",
        metadata: { transactionId: "00000000-0000-4000-8000-000000000000" },
      }),
    );
    assert.equal(unknown.status, 200);
  });

  it("race: 200 payments each get a concurrent cancel and completion; each ends in exactly one final state", async () => {
    const payments = [];
    for (let i = 0; i < 200; i++) payments.push(await newPayment());
    await Promise.all(
      payments.flatMap((payment, i) => [
        service.api(group, "DELETE", `/api/v1/payments/${payment.transactionId}`),
        send(completed(payment, `pi_race_${i}`)),
      ]),
    );
    const counts = { cancelled: 0, succeeded: 0 };
    for (const payment of payments) {
      const [row] = await service.services.db.query<{ status: string; flagged: boolean }>(
        `SELECT status, EXISTS (SELECT 1 FROM reconciliation_items i WHERE i.payment_id = p.id
           AND i.kind = 'paid_after_cancel') AS flagged FROM payments p WHERE id = $1`,
        [payment.transactionId],
      );
      const finals = await service.services.db.query<{ to_status: string }>(
        "SELECT to_status FROM payment_status_changes WHERE payment_id = $1 AND to_status IN ('cancelled', 'succeeded')",
        [payment.transactionId],
      );
      assert.equal(finals.length, 1, `exactly one final transition for ${payment.transactionId}`);
      assert.equal(finals[0]?.to_status, row?.status);
      if (row?.status === "cancelled") {
        counts.cancelled += 1;
        assert.equal(row.flagged, true, "paid after cancel is flagged");
      } else {
        assert.equal(row?.status, "succeeded");
        counts.succeeded += 1;
      }
    }
    assert.equal(counts.cancelled + counts.succeeded, 200);
  });
});
