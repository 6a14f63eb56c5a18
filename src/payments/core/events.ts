import type { WebhookEventName } from "../../webhooks/event-names.ts";
import type { OutboxMessage } from "../../webhooks/outbox.ts";
import { webhookMetadata } from "./metadata.ts";
import type { PaymentStatus } from "./status.ts";
import type { PaymentRow } from "./store.ts";

export type { WebhookEventName };

/** Events by status (docs/api.md, "Webhooks"): pending, processing and dispute_won send nothing. */
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

/**
 * The webhook body in its documented field order, then the fields added later. `timestamp` holds its place
 * here and is filled in by the outbox at the first send (retries repeat it). An erased payment's body
 * has no customerEmail and no metadata (ERASED_EVENT_FIELDS).
 */
export function webhookPayload(event: WebhookEventName, payment: PaymentRow) {
  return {
    event,
    transactionId: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    ...(payment.customer_email !== null && { customerEmail: payment.customer_email }),
    processorPaymentId: payment.processor_payment_id,
    ...(payment.erased_at === null && { metadata: webhookMetadata(payment.metadata, payment.description) }),
    completedAt: payment.completed_at ? payment.completed_at.toISOString() : null,
    timestamp: null,
    amountRefunded: payment.refunded_amount,
  };
}

/** What erasure takes out of every stored event body of the customer's payments. */
export const ERASED_EVENT_FIELDS = ["customerEmail", "metadata"] as const;

/**
 * The webhook a payment now in `payment.status` causes, or null when its status sends none. It
 * goes to the payment's own webhookUrl, else to the group's (`groupWebhookUrl`, as set now); a
 * payment whose own URL was dropped as unreachable keeps its events for the feed only.
 */
export function webhookMessageFor(
  payment: PaymentRow,
  groupWebhookUrl: string | null = null,
): OutboxMessage | null {
  const event = EVENT_FOR_STATUS[payment.status];
  if (!event) return null;
  return {
    groupId: payment.group_id,
    transactionId: payment.id,
    event,
    status: payment.status,
    payload: webhookPayload(event, payment),
    url: payment.webhook_url ?? (payment.dropped_webhook_host === null ? groupWebhookUrl : null),
  };
}
