import type { Database, Queryable } from "../db/database.ts";
import { EVENT_FOR_STATUS } from "../webhooks/events.ts";
import { enqueueWebhookEvent } from "../webhooks/outbox.ts";
import type { PaymentRow, PaymentStatus } from "./payment.ts";

/**
 * The one transition table: every status change in the service is checked against it and made
 * by the conditional UPDATE below, so two concurrent changes from one status can never both win.
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ["processing", "failed", "cancelled"],
  processing: ["succeeded", "failed", "expired", "cancelled"],
  // A declined card leaves the checkout page open: the customer may pay with another card.
  failed: ["succeeded"],
  succeeded: ["refunded", "partially_refunded", "disputed"],
  partially_refunded: ["partially_refunded", "refunded", "disputed"],
  refunded: ["disputed"],
  disputed: ["dispute_won", "dispute_lost"],
  dispute_won: ["partially_refunded", "refunded"],
  dispute_lost: [],
  expired: [],
  cancelled: [],
};

/** Statuses that set completedAt (spec §2.1); refunds and disputes keep the original time. */
const FINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set(["succeeded", "failed", "cancelled", "expired"]);

const SOURCES = new Map<PaymentStatus, PaymentStatus[]>();
for (const [from, targets] of Object.entries(TRANSITIONS) as [PaymentStatus, readonly PaymentStatus[]][]) {
  for (const to of targets) SOURCES.set(to, [...(SOURCES.get(to) ?? []), from]);
}

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface TransitionRequest {
  paymentId: string;
  to: PaymentStatus;
  /** Why, for the audit trail: "merchant_cancel", "processor_event:evt_…", … */
  reason: string;
  /** Narrows the table's sources (e.g. cancel only from pending/processing). */
  from?: readonly PaymentStatus[];
  /** Restricts the change to one merchant's payments. */
  groupId?: string;
  /** False when the merchant learns the outcome synchronously (a failed create). */
  notify?: boolean;
  processorSessionId?: string;
  processorCheckoutUrl?: string;
  processorPaymentIntentId?: string | null;
  refundedAmount?: number;
}

export interface TransitionResult {
  payment: PaymentRow;
  from: PaymentStatus;
  /** True when a webhook delivery was queued; the caller wakes the dispatcher after commit. */
  queuedWebhook: boolean;
}

/**
 * Moves a payment to `to` if its current status allows it; null when it does not (nothing changed).
 * Must run inside the transaction that also writes whatever the change causes.
 */
export async function transition(
  tx: Queryable,
  request: TransitionRequest,
): Promise<TransitionResult | null> {
  const allowed = (SOURCES.get(request.to) ?? []).filter(
    (from) => !request.from || request.from.includes(from),
  );
  if (allowed.length === 0) return null;
  const [row] = await tx.query<PaymentRow & { previous_status: PaymentStatus }>(
    `WITH previous AS (
       SELECT id, status FROM payments WHERE id = $1 AND ($9::uuid IS NULL OR group_id = $9) FOR UPDATE
     ), changed AS (
       UPDATE payments p SET
         status = $2,
         updated_at = now(),
         completed_at = CASE WHEN $3::boolean THEN now() ELSE p.completed_at END,
         processor_session_id = COALESCE($5, p.processor_session_id),
         processor_checkout_url = COALESCE($6, p.processor_checkout_url),
         processor_payment_intent_id = COALESCE($7, p.processor_payment_intent_id),
         refunded_amount = COALESCE($8, p.refunded_amount)
       FROM previous
       WHERE p.id = previous.id AND previous.status = ANY($4::text[])
       RETURNING p.*, previous.status AS previous_status
     ), audit AS (
       INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason)
       SELECT id, previous_status, status, $10 FROM changed
     )
     SELECT * FROM changed`,
    [
      request.paymentId,
      request.to,
      FINAL_STATUSES.has(request.to),
      allowed,
      request.processorSessionId ?? null,
      request.processorCheckoutUrl ?? null,
      request.processorPaymentIntentId ?? null,
      request.refundedAmount ?? null,
      request.groupId ?? null,
      request.reason,
    ],
  );
  if (!row) return null;
  const { previous_status: from, ...payment } = row;
  const queuedWebhook = request.notify === false ? false : await enqueueWebhookEvent(tx, payment);
  return { payment, from, queuedWebhook };
}

/**
 * A transition in its own transaction. One that causes no event is a single atomic statement, so
 * it skips BEGIN/COMMIT: two round trips fewer on the create path.
 */
export function applyTransition(db: Database, request: TransitionRequest): Promise<TransitionResult | null> {
  const causesEvent = request.notify !== false && EVENT_FOR_STATUS[request.to] !== undefined;
  return causesEvent ? db.transaction((tx) => transition(tx, request)) : transition(db, request);
}
