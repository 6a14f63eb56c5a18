import type Stripe from "stripe";
import {
  NOT_ACTED_ON,
  type ProcessorEvent,
  type ProcessorRefund,
  type ProcessorRefundStatus,
} from "../port.ts";
import { toProcessorDispute } from "./disputes.ts";

export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);

/** Stripe's refund statuses in ours: canceled and failed refunds gave nothing back. */
export function refundStatusOf(status: string | null): ProcessorRefundStatus {
  if (status === "succeeded") return "succeeded";
  if (status === "failed" || status === "canceled") return "failed";
  return "pending";
}

export function toProcessorRefund(refund: Stripe.Refund): ProcessorRefund {
  return {
    id: refund.id,
    amount: refund.amount,
    status: refundStatusOf(refund.status),
    refundIdHint: refund.metadata?.refundId ?? null,
  };
}

type EventFields = Omit<ProcessorEvent, "id" | "type">;

/** Stripe's events mapped to neutral actions; events we do not act on carry none. */
export function interpretStripeEvent(event: Stripe.Event): EventFields {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired": {
      const session = event.data.object;
      const fields = {
        checkoutId: session.id,
        paymentRef: event.type === "checkout.session.expired" ? null : idOf(session.payment_intent),
        transactionIdHint: session.metadata?.transactionId ?? null,
        amount: session.amount_total ?? null,
        currency: session.currency ?? null,
      };
      if (event.type === "checkout.session.expired") return { ...fields, action: { kind: "expired" } };
      if (event.type === "checkout.session.async_payment_failed")
        return { ...fields, action: { kind: "failed" } };
      // Async payment methods complete the session unpaid and settle later.
      return { ...fields, action: session.payment_status === "paid" ? { kind: "paid" } : null };
    }
    case "payment_intent.payment_failed": {
      const intent = event.data.object;
      return {
        ...NOT_ACTED_ON,
        action: { kind: "failed" },
        paymentRef: intent.id,
        transactionIdHint: intent.metadata?.transactionId ?? null,
        amount: intent.amount ?? null,
        currency: intent.currency ?? null,
      };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      return {
        ...NOT_ACTED_ON,
        action: { kind: "refunded", amountRefunded: charge.amount_refunded },
        paymentRef: idOf(charge.payment_intent),
        transactionIdHint: charge.metadata?.transactionId ?? null,
        amount: charge.amount ?? null,
        currency: charge.currency ?? null,
      };
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
    case "charge.refund.updated": {
      const refund = event.data.object;
      // The refund's own amount is checked against our refund, not against the payment's.
      return {
        ...NOT_ACTED_ON,
        action: { kind: "refund_settled", refund: toProcessorRefund(refund) },
        paymentRef: idOf(refund.payment_intent),
        transactionIdHint: refund.metadata?.transactionId ?? null,
        currency: refund.currency ?? null,
      };
    }
    case "charge.dispute.created":
    case "charge.dispute.updated":
    case "charge.dispute.closed": {
      const dispute = toProcessorDispute(event.data.object);
      const fields = {
        ...NOT_ACTED_ON,
        paymentRef: idOf(event.data.object.payment_intent),
        currency: dispute.currency || null,
      };
      if (event.type === "charge.dispute.created")
        return { ...fields, action: { kind: "disputed", dispute } };
      if (dispute.status === "won" || dispute.status === "lost") {
        return { ...fields, action: { kind: "dispute_closed", outcome: dispute.status, dispute } };
      }
      return { ...fields, action: { kind: "dispute_updated", dispute } };
    }
    default:
      return NOT_ACTED_ON;
  }
}
