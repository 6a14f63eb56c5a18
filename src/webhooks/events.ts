import type { PaymentRow, PaymentStatus } from "../payments/payment.ts";

export type WebhookEventName =
  | "payment.completed"
  | "payment.failed"
  | "payment.expired"
  | "payment.refunded"
  | "payment.disputed";

/** Spec §6.2. pending, processing and dispute_won send nothing. */
export const EVENT_FOR_STATUS: Partial<Record<PaymentStatus, WebhookEventName>> = {
  succeeded: "payment.completed",
  failed: "payment.failed",
  cancelled: "payment.failed",
  expired: "payment.expired",
  refunded: "payment.refunded",
  partially_refunded: "payment.refunded",
  disputed: "payment.disputed",
  dispute_lost: "payment.disputed",
};

/** The webhook body of spec §6.1 without `timestamp`, which is fixed at the first send. */
export interface WebhookPayload {
  event: WebhookEventName;
  transactionId: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  customerEmail: string;
  processorPaymentId: string | null;
  metadata: Record<string, unknown>;
  completedAt: string | null;
}

export function buildPayload(event: WebhookEventName, payment: PaymentRow): WebhookPayload {
  // §6.1: the merchant's metadata, which may also carry `description`.
  const metadata: Record<string, unknown> = { ...(payment.metadata ?? {}) };
  if (payment.description !== null) metadata.description = payment.description;
  return {
    event,
    transactionId: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    customerEmail: payment.customer_email,
    processorPaymentId: payment.processor_payment_intent_id,
    metadata,
    completedAt: payment.completed_at ? payment.completed_at.toISOString() : null,
  };
}
