import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EVENT_FOR_STATUS, webhookMessageFor, webhookPayload } from "../../../src/payments/core/events.ts";
import { descriptionOf, storedMetadata, visibleMetadata } from "../../../src/payments/core/metadata.ts";
import { PAYMENT_STATUSES } from "../../../src/payments/core/status.ts";
import type { PaymentRow } from "../../../src/payments/core/store.ts";
import { WEBHOOK_BODY_FIELDS } from "../../helpers/receiver.ts";

const row = (overrides: Partial<PaymentRow> = {}): PaymentRow => ({
  id: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
  group_id: "00000000-0000-4000-8000-000000000001",
  status: "succeeded",
  amount: 1999,
  currency: "usd",
  customer_email: "jane@example.com",
  customer_name: null,
  description: "Two books",
  metadata: { orderId: "A-1" },
  success_url: "https://shop.example.com/ok",
  cancel_url: "https://shop.example.com/cart",
  webhook_url: "https://shop.example.com/hook",
  dropped_webhook_host: null,
  redirect_fallback: false,
  safe_site_id: "00000000-0000-4000-8000-000000000002",
  safe_site_url: "https://pay.example.com",
  link_token: "t".repeat(32),
  processor: "stripe",
  processor_checkout_id: "cs_1",
  processor_checkout_url: "https://processor.example.com/cs_1",
  processor_payment_id: "pi_1",
  refunded_amount: 0,
  refund_reserved: 0,
  paid_at_processor: true,
  processor_failovers: null,
  payment_link_id: null,
  expiry_claimed_until: null,
  expires_at: new Date("2026-01-01T00:30:00Z"),
  created_at: new Date("2026-01-01T00:00:00Z"),
  updated_at: new Date("2026-01-01T00:01:00Z"),
  completed_at: new Date("2026-01-01T00:01:00Z"),
  erased_at: null,
  ...overrides,
});

describe("status → webhook event", () => {
  it("maps every status, and sends nothing for pending, processing and dispute_won", () => {
    const expected: Record<string, string | undefined> = {
      pending: undefined,
      processing: undefined,
      succeeded: "payment.completed",
      failed: "payment.failed",
      expired: "payment.expired",
      cancelled: "payment.failed",
      refunded: "payment.refunded",
      partially_refunded: "payment.refunded",
      disputed: "payment.disputed",
      dispute_won: undefined,
      dispute_lost: "payment.disputed",
    };
    for (const status of PAYMENT_STATUSES) {
      assert.equal(EVENT_FOR_STATUS[status], expected[status], status);
      assert.equal(webhookMessageFor(row({ status }))?.event, expected[status], status);
    }
  });

  it("builds the documented body in its field order, with the description in metadata", () => {
    const payload = webhookPayload("payment.completed", row());
    // `timestamp` holds its place, filled at send time (test/webhooks/request.test.ts).
    assert.deepEqual(Object.keys(payload), WEBHOOK_BODY_FIELDS);
    assert.equal(payload.timestamp, null);
    assert.equal(payload.amountRefunded, 0);
    assert.deepEqual(payload.metadata, { orderId: "A-1", description: "Two books" });
    assert.equal(payload.processorPaymentId, "pi_1");
    assert.equal(payload.completedAt, "2026-01-01T00:01:00.000Z");
  });

  it("addresses the message to the payment's webhookUrl, or keeps it for the feed only", () => {
    assert.equal(webhookMessageFor(row())?.url, "https://shop.example.com/hook");
    assert.equal(webhookMessageFor(row({ webhook_url: null }))?.url, null);
    // docs/api.md, "Webhook settings": the group's URL for a payment without its own, never instead of its own, and not
    // for one whose own URL was dropped as unreachable.
    const group = "https://shop.example.com/group-hook";
    assert.equal(webhookMessageFor(row({ webhook_url: null }), group)?.url, group);
    assert.equal(webhookMessageFor(row(), group)?.url, "https://shop.example.com/hook");
    assert.equal(
      webhookMessageFor(row({ webhook_url: null, dropped_webhook_host: "10.0.0.1" }), group)?.url,
      null,
    );
    assert.equal(webhookMessageFor(row())?.transactionId, row().id);
  });
});

describe("metadata rules", () => {
  it("drops reserved keys at creation and keeps null for nothing", () => {
    assert.deepEqual(storedMetadata({ _internal: "x", orderId: 7 }), { orderId: 7 });
    assert.equal(storedMetadata({ _only: "x" }), null);
    assert.equal(storedMetadata(undefined), null);
  });

  it("takes the top-level description first, then a string description key", () => {
    assert.equal(descriptionOf("top", { description: "meta" }), "top");
    assert.equal(descriptionOf(undefined, { description: "meta" }), "meta");
    assert.equal(descriptionOf(undefined, { description: 42 }), null);
    assert.equal(descriptionOf(undefined, null), null);
  });

  it("never shows reserved keys or description in Get Payment", () => {
    assert.deepEqual(visibleMetadata({ _x: 1, description: "d", orderId: "A" }), { orderId: "A" });
    assert.equal(visibleMetadata({ description: "d" }), null);
  });
});
