export const PAYMENT_STATUSES = [
  "pending",
  "processing",
  "succeeded",
  "failed",
  "expired",
  "cancelled",
  "refunded",
  "partially_refunded",
  "disputed",
  "dispute_won",
  "dispute_lost",
] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type Currency = "usd" | "cad";

export interface PaymentRow {
  id: string;
  group_id: string;
  status: PaymentStatus;
  amount: number;
  currency: Currency;
  customer_email: string;
  customer_name: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  success_url: string;
  cancel_url: string;
  webhook_url: string | null;
  safe_site_id: string;
  safe_site_url: string;
  link_token: string;
  processor_session_id: string | null;
  processor_checkout_url: string | null;
  processor_payment_intent_id: string | null;
  refunded_amount: number;
  needs_reconciliation: boolean;
  reconciliation_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The merchant's metadata as Get Payment shows it: no reserved `_` keys, no `description`. */
export function visibleMetadata(metadata: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!metadata) return null;
  const visible = Object.fromEntries(
    Object.entries(metadata).filter(([key]) => !key.startsWith("_") && key !== "description"),
  );
  return Object.keys(visible).length > 0 ? visible : null;
}

/** Spec §2.1: the payment object of Get Payment. */
export function toPaymentResource(row: PaymentRow) {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    customerEmail: row.customer_email,
    description: row.description,
    metadata: visibleMetadata(row.metadata),
    processorSessionId: row.processor_session_id ?? undefined,
    processorPaymentIntentId: row.processor_payment_intent_id ?? undefined,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
}
