import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Stripe from "stripe";
import { InvalidEventError } from "../../../src/processor/port.ts";
import { stripeAdapter } from "../../../src/processor/stripe/adapter.ts";

const WEBHOOK_SECRET = "whsec_unit_test_secret";
const processor = stripeAdapter({ secretKey: "sk_test_unit", webhookSecret: WEBHOOK_SECRET });
const stripe = new Stripe("sk_test_unit");

function signed(type: string, object: Record<string, unknown>) {
  const payload = JSON.stringify({ id: `evt_${type}`, object: "event", type, data: { object } });
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return { body: Buffer.from(payload), header };
}

const parse = (type: string, object: Record<string, unknown>) => {
  const { body, header } = signed(type, object);
  return processor.parseEvent(body, { "stripe-signature": header });
};

const session = {
  id: "cs_1",
  object: "checkout.session",
  payment_status: "paid",
  payment_intent: "pi_1",
  amount_total: 1999,
  currency: "usd",
  metadata: { transactionId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b" },
};

describe("the Stripe adapter reads events as neutral facts", () => {
  it("a paid checkout session names its session, intent, amount and currency", () => {
    assert.deepEqual(parse("checkout.session.completed", session), {
      id: "evt_checkout.session.completed",
      type: "checkout.session.completed",
      action: { kind: "paid" },
      checkoutId: "cs_1",
      paymentRef: "pi_1",
      transactionIdHint: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
      amount: 1999,
      currency: "usd",
    });
  });

  it("an unpaid completion (async methods) carries no fact; a failed async payment does", () => {
    assert.equal(parse("checkout.session.completed", { ...session, payment_status: "unpaid" }).action, null);
    assert.deepEqual(parse("checkout.session.async_payment_failed", session).action, { kind: "failed" });
    assert.deepEqual(parse("checkout.session.expired", session).action, { kind: "expired" });
  });

  it("refunds carry the cumulative total; disputes their outcome once closed", () => {
    const charge = {
      id: "ch_1",
      object: "charge",
      payment_intent: "pi_1",
      amount: 1999,
      amount_refunded: 500,
      currency: "usd",
    };
    const refunded = parse("charge.refunded", charge);
    assert.deepEqual(refunded.action, { kind: "refunded", amountRefunded: 500 });
    assert.equal(refunded.paymentRef, "pi_1");
    const dispute = {
      id: "dp_1",
      object: "dispute",
      payment_intent: "pi_1",
      amount: 1999,
      currency: "usd",
      reason: "subscription_canceled",
      status: "won",
      evidence_details: { due_by: 1_800_000_000 },
    };
    const facts = {
      id: "dp_1",
      amount: 1999,
      currency: "usd",
      reason: "credit_not_processed",
      evidenceDueBy: new Date(1_800_000_000_000),
    };
    assert.deepEqual(parse("charge.dispute.created", { ...dispute, status: "needs_response" }).action, {
      kind: "disputed",
      dispute: { ...facts, status: "needs_response" },
    });
    assert.deepEqual(parse("charge.dispute.updated", { ...dispute, status: "under_review" }).action, {
      kind: "dispute_updated",
      dispute: { ...facts, status: "under_review" },
    });
    assert.deepEqual(parse("charge.dispute.closed", dispute).action, {
      kind: "dispute_closed",
      outcome: "won",
      dispute: { ...facts, status: "won" },
    });
    assert.deepEqual(parse("charge.dispute.closed", { ...dispute, status: "lost" }).action, {
      kind: "dispute_closed",
      outcome: "lost",
      dispute: { ...facts, status: "lost" },
    });
    // An inquiry closed without a chargeback: the merchant kept the money.
    assert.equal(
      (
        parse("charge.dispute.closed", { ...dispute, status: "warning_closed" }).action as {
          outcome?: string;
        }
      ).outcome,
      "won",
    );
    // A reason Stripe has and we do not say is general.
    assert.equal(
      (
        parse("charge.dispute.created", { ...dispute, reason: "bank_cannot_process" }).action as {
          dispute: { reason: string };
        }
      ).dispute.reason,
      "general",
    );
  });

  it("refund events settle one refund: its id, amount, status and our refund id", () => {
    const refund = {
      id: "re_1",
      object: "refund",
      payment_intent: "pi_1",
      amount: 700,
      currency: "usd",
      status: "succeeded",
      metadata: {
        refundId: "9d1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
        transactionId: session.metadata.transactionId,
      },
    };
    for (const type of ["refund.created", "refund.updated", "charge.refund.updated"]) {
      const event = parse(type, refund);
      assert.deepEqual(event.action, {
        kind: "refund_settled",
        refund: { id: "re_1", amount: 700, status: "succeeded", refundIdHint: refund.metadata.refundId },
      });
      assert.equal(event.paymentRef, "pi_1");
      // The refund's amount is not the payment's: it is checked against our refund instead.
      assert.equal(event.amount, null);
    }
    const failed = parse("refund.failed", { ...refund, status: "failed" }).action;
    assert.equal(failed?.kind === "refund_settled" && failed.refund.status, "failed");
    const pending = parse("refund.updated", { ...refund, status: "pending" }).action;
    assert.equal(pending?.kind === "refund_settled" && pending.refund.status, "pending");
  });

  it("events it does not act on carry no fact", () => {
    assert.equal(parse("customer.created", { id: "cus_1", object: "customer" }).action, null);
  });

  it("refuses a bad signature or a changed body", () => {
    const { body, header } = signed("checkout.session.completed", session);
    assert.throws(
      () => processor.parseEvent(body, { "stripe-signature": header.replace(/v1=[0-9a-f]+/, "v1=00") }),
      InvalidEventError,
    );
    const changed = Buffer.from(body.toString().replace("1999", "1"));
    assert.throws(() => processor.parseEvent(changed, { "stripe-signature": header }), InvalidEventError);
    assert.throws(() => processor.parseEvent(body, {}), InvalidEventError);
  });
});
