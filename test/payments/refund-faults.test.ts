// Money at the processor boundary: a refund whose processor answer is lost, refused
// with a 5xx or held back stays pending, is settled by asking again under the same processor key,
// and is carried out at most once at the processor, counted there, not only in our tables.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type Stripe from "stripe";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

type FaultMode = "drop_response" | "error_500" | "delay";

describe("refunds when the processor misbehaves", () => {
  let service: TestService;
  let group: TestGroup;
  let stripe: Stripe;
  before(async () => {
    service = await startTestService({ REFUND_DEADLINE_MS: "1000", REFUND_SETTLE_INTERVAL_MS: "100" });
    group = await service.createGroup();
    stripe = service.processorClient();
  });
  after(async () => {
    await service.sandboxDelete("/sandbox/faults");
    await service.close();
  });

  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const refunds = async (id: string) =>
    (await service.api(group, "GET", `/api/v1/payments/${id}/refunds`)).body.data.refunds as {
      refundId: string;
      amount: number;
      status: string;
    }[];
  const refund = (id: string, amount: number, key?: string) =>
    service.api(
      group,
      "POST",
      `/api/v1/payments/${id}/refunds`,
      { amount },
      key ? { "idempotency-key": key } : {},
    );
  const paid = async (amount: number) => {
    const created = (await service.createPayment(group, { amount })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    return waitFor(async () => {
      const payment = await read(created.transactionId);
      return payment.status === "succeeded" ? payment : undefined;
    });
  };
  /** What the processor carried out for this payment: its own list, not our tables. */
  const atProcessor = async (paymentIntent: string) =>
    (await stripe.refunds.list({ payment_intent: paymentIntent, limit: 100 })).data;

  for (const mode of ["drop_response", "error_500", "delay"] as const satisfies readonly FaultMode[]) {
    for (const withKey of [true, false]) {
      for (const retried of [false, true]) {
        const name = `${mode}, ${withKey ? "with" : "without"} Idempotency-Key, ${retried ? "retried by the merchant" : "not retried"}`;
        it(`${name}: pending at once, settled later, carried out once per refund id`, async () => {
          const payment = await paid(2000);
          // Three faults: the SDK's first try and both of its retries misbehave.
          await service.sandboxPost("/sandbox/faults", { refunds: { mode, count: 3 } });
          const key = withKey ? `k-${mode}-${retried}` : undefined;
          const started = Date.now();
          const first = await refund(payment.id, 700, key);
          assert.ok(Date.now() - started < 5000, "the merchant hears within the deadline");
          assert.equal(first.status, 201, JSON.stringify(first.body));
          assert.equal(first.body.data.status, "pending", "an unknown outcome is pending, never failed");
          assert.equal(first.body.data.amount, 700);
          const asked = [first.body.data.refundId];
          if (retried) {
            const second = await refund(payment.id, 700, key);
            assert.equal(second.status, 201, JSON.stringify(second.body));
            if (withKey) {
              assert.equal(
                second.body.data.refundId,
                first.body.data.refundId,
                "the same refund, not a second",
              );
              assert.equal(second.headers.get("idempotent-replayed"), "true");
            } else {
              asked.push(second.body.data.refundId); // a new request without a key is a new refund
            }
          }
          const settled = await waitFor(
            async () => {
              const list = await refunds(payment.id);
              return list.every((r) => r.status === "succeeded") ? list : undefined;
            },
            15_000,
            "every refund settled",
          );
          assert.deepEqual(settled.map((r) => r.refundId).sort(), [...asked].sort());
          const total = 700 * asked.length;
          const final = await waitFor(async () => {
            const p = await read(payment.id);
            return p.amountRefunded === total ? p : undefined;
          });
          assert.equal(final.status, "partially_refunded");
          const carriedOut = await atProcessor(payment.processorPaymentIntentId);
          assert.equal(carriedOut.length, asked.length, "the processor carried out one refund per refund id");
          assert.deepEqual(carriedOut.map((r) => r.metadata?.refundId).sort(), [...asked].sort());
          assert.equal(
            carriedOut.reduce((sum, r) => sum + r.amount, 0),
            total,
          );
        });
      }
    }
  }

  it("a definite refusal fails the refund, releases its amount and carries nothing out", async () => {
    const created = (await service.createPayment(group, { amount: 1500 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, {
      outcome: "succeeded",
      card: "4000000000005126",
    });
    const payment = await waitFor(async () => {
      const p = await read(created.transactionId);
      return p.status === "succeeded" ? p : undefined;
    });
    const refused = await refund(payment.id, 500, "refused-once");
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, "PROCESSOR_ERROR");
    assert.deepEqual(
      (await refunds(payment.id)).map((r) => r.status),
      ["failed"],
    );
    assert.equal((await atProcessor(payment.processorPaymentIntentId)).length, 0);
    // Nothing is held back: the whole amount may still be asked for.
    const all = await service.api(group, "POST", `/api/v1/payments/${payment.id}/refunds`, { amount: 1500 });
    assert.equal(all.status, 502, "refused again by the test card, but not for lack of room");
  });

  it("keys of creates and refunds never collide", async () => {
    const payment = await paid(1000);
    const create = await service.createPayment(group, {}, { "idempotency-key": `refund:${payment.id}:k1` });
    assert.equal(create.status, 200);
    const refunded = await refund(payment.id, 100, "k1");
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
  });
});
