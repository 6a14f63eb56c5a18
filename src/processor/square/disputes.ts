import { createHash } from "node:crypto";
import type { DisputeEvidence, DisputeReason, DisputeStatus, ProcessorDispute } from "../port.ts";

/** Square's dispute reasons in ours. */
const REASONS: Record<string, DisputeReason> = {
  AMOUNT_DIFFERS: "general",
  CANCELLED: "credit_not_processed",
  DUPLICATE: "duplicate",
  NO_KNOWLEDGE: "unrecognized",
  NOT_AS_DESCRIBED: "product_unacceptable",
  NOT_RECEIVED: "product_not_received",
  // Paid twice, once by another means: a duplicate to the merchant.
  PAID_BY_OTHER_MEANS: "duplicate",
  CUSTOMER_REQUESTS_CREDIT: "credit_not_processed",
  EMV_LIABILITY_SHIFT: "fraudulent",
};

/** Square's states in ours; an inquiry is answered as a dispute is. */
const STATUSES: Record<string, DisputeStatus> = {
  INQUIRY_EVIDENCE_REQUIRED: "needs_response",
  EVIDENCE_REQUIRED: "needs_response",
  INQUIRY_PROCESSING: "under_review",
  PROCESSING: "under_review",
  INQUIRY_CLOSED: "won",
  WON: "won",
  LOST: "lost",
  ACCEPTED: "accepted",
};

/** Each of our evidence fields under the Square evidence type that says the same. */
export const SQUARE_EVIDENCE_TYPES: Record<keyof DisputeEvidence, string> = {
  productDescription: "PRODUCT_OR_SERVICE_DESCRIPTION",
  customerCommunication: "CARDHOLDER_COMMUNICATION",
  refundPolicy: "CANCELLATION_OR_REFUND_DOCUMENTATION",
  serviceDate: "SERVICE_RECEIVED_DOCUMENTATION",
  shippingTracking: "TRACKING_NUMBER",
  uncategorizedText: "GENERIC_EVIDENCE",
};

/**
 * One text's idempotency key: Square takes at most 45 characters, so the request's key and the
 * field are hashed together; the same text under the same key is filed once.
 */
export const evidenceTextKey = (idempotencyKey: string, field: string): string =>
  createHash("sha256").update(`${idempotencyKey}\0${field}`).digest("hex").slice(0, 40);

/** A Square dispute, read from an event (snake_case JSON) or the SDK (camelCase). */
export function toProcessorDispute(dispute: {
  id: string;
  state: string | null | undefined;
  reason: string | null | undefined;
  amount: number | null;
  currency: string | null;
  dueAt: string | null | undefined;
}): ProcessorDispute {
  const due = dispute.dueAt ? new Date(dispute.dueAt) : null;
  return {
    id: dispute.id,
    status: STATUSES[dispute.state ?? ""] ?? "needs_response",
    amount: dispute.amount ?? 0,
    currency: dispute.currency ?? "",
    reason: REASONS[dispute.reason ?? ""] ?? "general",
    evidenceDueBy: due && !Number.isNaN(due.getTime()) ? due : null,
  };
}
