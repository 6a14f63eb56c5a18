import type Stripe from "stripe";
import {
  type DisputeEvidence,
  type DisputeReason,
  type DisputeStatus,
  type ProcessorDispute,
  ProcessorRefusedError,
} from "../port.ts";

/** Stripe's reasons that are not ours word for word. */
const REASONS: Record<string, DisputeReason> = {
  fraudulent: "fraudulent",
  debit_not_authorized: "fraudulent",
  product_not_received: "product_not_received",
  product_unacceptable: "product_unacceptable",
  duplicate: "duplicate",
  credit_not_processed: "credit_not_processed",
  subscription_canceled: "credit_not_processed",
  unrecognized: "unrecognized",
};

/** Stripe's statuses in ours: a warning (an inquiry) is answered as a dispute is. */
const STATUSES: Record<Stripe.Dispute.Status, DisputeStatus> = {
  warning_needs_response: "needs_response",
  needs_response: "needs_response",
  warning_under_review: "under_review",
  under_review: "under_review",
  warning_closed: "won",
  won: "won",
  prevented: "won",
  lost: "lost",
  appeal_needs_response: "needs_response",
  appeal_under_review: "under_review",
};

/** Stripe takes each text field up to this length. */
const STRIPE_TEXT_LIMIT = 20_000;

export function toProcessorDispute(dispute: Stripe.Dispute): ProcessorDispute {
  const due = dispute.evidence_details?.due_by;
  return {
    id: dispute.id,
    status: STATUSES[dispute.status] ?? "needs_response",
    // Zero when an event leaves it out: the service then takes the payment's.
    amount: dispute.amount ?? 0,
    currency: dispute.currency,
    reason: REASONS[dispute.reason] ?? "general",
    evidenceDueBy: typeof due === "number" ? new Date(due * 1000) : null,
  };
}

/**
 * Our evidence in Stripe's text fields. Stripe's customer communication is a file, so the
 * customer's messages go into the uncategorized text, headed, before the merchant's own text.
 */
export function stripeEvidenceOf(evidence: DisputeEvidence): Stripe.DisputeUpdateParams.Evidence {
  const uncategorized = [
    evidence.customerCommunication !== undefined
      ? `Customer communication:\n${evidence.customerCommunication}`
      : undefined,
    evidence.uncategorizedText,
  ]
    .filter((part): part is string => part !== undefined)
    .join("\n\n");
  if (uncategorized.length > STRIPE_TEXT_LIMIT) {
    throw new ProcessorRefusedError(
      `Stripe takes at most ${STRIPE_TEXT_LIMIT} characters of customer communication and other text together`,
    );
  }
  return {
    ...(evidence.productDescription !== undefined && { product_description: evidence.productDescription }),
    ...(evidence.refundPolicy !== undefined && { refund_policy_disclosure: evidence.refundPolicy }),
    ...(evidence.serviceDate !== undefined && { service_date: evidence.serviceDate }),
    ...(evidence.shippingTracking !== undefined && { shipping_tracking_number: evidence.shippingTracking }),
    ...(uncategorized !== "" && { uncategorized_text: uncategorized }),
  };
}
