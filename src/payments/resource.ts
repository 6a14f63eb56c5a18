import { CURRENCIES } from "../platform/format/money.ts";
import { PROCESSOR_NAMES } from "../processor/catalog.ts";
import { visibleMetadata } from "./core/metadata.ts";
import { PAYMENT_STATUSES } from "./core/status.ts";
import type { PaymentResourceRow, PaymentRow } from "./core/store.ts";

/** The payment object of Get Payment (docs/api.md, "GET /api/v1/payments/:id"). */
export const paymentResourceSchema = {
  type: "object",
  required: ["id", "status", "amount", "currency", "createdAt", "completedAt"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { type: "string", enum: [...PAYMENT_STATUSES] },
    amount: { type: "integer" },
    currency: { type: "string", enum: [...CURRENCIES] },
    customerEmail: { type: "string" },
    description: { type: ["string", "null"] },
    metadata: { type: ["object", "null"], additionalProperties: true },
    processorSessionId: { type: "string" },
    processorPaymentIntentId: { type: "string" },
    createdAt: { type: "string", format: "date-time" },
    completedAt: { type: ["string", "null"], format: "date-time" },
    amountRefunded: { type: "integer", description: "Cents refunded, as the processor confirmed" },
    paidAfterCancel: {
      type: "boolean",
      description: "The processor took the customer's money for a payment that stays cancelled",
    },
    processor: {
      type: "string",
      enum: [...PROCESSOR_NAMES],
      description: "The processor whose checkout the customer is sent to; every later call goes there",
    },
    paymentLinkId: {
      type: ["string", "null"],
      format: "uuid",
      description: "The payment link the customer paid through; null for a payment made through the API",
    },
    redirectFallback: {
      type: "boolean",
      description:
        "successUrl or cancelUrl was refused by the unreachable-host rule (a loopback, private or reserved host), " +
        "so the customer is sent to the fallback (FALLBACK_URL, or the payment's own page) instead",
    },
    erasedAt: {
      type: "string",
      format: "date-time",
      description:
        "When the customer was erased (POST /api/v1/customers/erase, or PII_RETENTION_DAYS): customerEmail is " +
        "absent, description and metadata are null; the bookkeeping stays",
    },
  },
} as const;

/** Money taken for a payment the merchant cancelled, which stays cancelled. */
export const isPaidAfterCancel = (row: Pick<PaymentRow, "status" | "paid_at_processor">): boolean =>
  row.status === "cancelled" && row.paid_at_processor;

export function toPaymentResource(row: PaymentResourceRow) {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    ...(row.customer_email !== null && { customerEmail: row.customer_email }),
    description: row.description,
    metadata: visibleMetadata(row.metadata),
    ...(row.processor_checkout_id !== null && { processorSessionId: row.processor_checkout_id }),
    ...(row.processor_payment_id !== null && { processorPaymentIntentId: row.processor_payment_id }),
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    amountRefunded: row.refunded_amount,
    paidAfterCancel: isPaidAfterCancel(row),
    processor: row.processor,
    paymentLinkId: row.payment_link_id,
    redirectFallback: row.redirect_fallback,
    ...(row.erased_at !== null && { erasedAt: row.erased_at.toISOString() }),
  };
}
