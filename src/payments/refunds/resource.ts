import type { RefundRow } from "./store.ts";

/** A refund as the API and the dashboard show it (docs/api.md, "Refunds"). */
export function toRefundResource(row: RefundRow) {
  return {
    refundId: row.id,
    transactionId: row.payment_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
  };
}

export type RefundResource = ReturnType<typeof toRefundResource>;
