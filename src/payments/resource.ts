import { visibleMetadata } from "./metadata.ts";
import { PAYMENT_STATUSES } from "./status.ts";
import type { PaymentRow } from "./store.ts";

/** Spec §2.1: the payment object of Get Payment. */
export const paymentResourceSchema = {
  type: "object",
  required: ["id", "status", "amount", "currency", "createdAt", "completedAt"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { type: "string", enum: [...PAYMENT_STATUSES] },
    amount: { type: "integer" },
    currency: { type: "string", enum: ["usd", "cad"] },
    customerEmail: { type: "string" },
    description: { type: ["string", "null"] },
    metadata: { type: ["object", "null"], additionalProperties: true },
    processorSessionId: { type: "string" },
    processorPaymentIntentId: { type: "string" },
    createdAt: { type: "string", format: "date-time" },
    completedAt: { type: ["string", "null"], format: "date-time" },
    amountRefunded: { type: "integer", description: "Cents refunded, as the processor confirmed" },
  },
} as const;

export function toPaymentResource(row: PaymentRow) {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    customerEmail: row.customer_email,
    description: row.description,
    metadata: visibleMetadata(row.metadata),
    ...(row.processor_session_id !== null && { processorSessionId: row.processor_session_id }),
    ...(row.processor_payment_intent_id !== null && {
      processorPaymentIntentId: row.processor_payment_intent_id,
    }),
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    amountRefunded: row.refunded_amount,
  };
}
