// Every statement on payments, their status history, idempotency keys and processor events.
import type { Queryable } from "../db/database.ts";
import type { Metadata } from "./metadata.ts";
import type { PaymentStatus } from "./status.ts";

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
  metadata: Metadata | null;
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
  /** Pending and succeeded refunds together: what may no longer be refunded. */
  refund_reserved: number;
  needs_reconciliation: boolean;
  reconciliation_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** What a create fixes before it asks the processor, so a retry can carry out the same. */
export interface CreatePlan {
  transactionId: string;
  linkToken: string;
  expiresAt: Date;
  /** Null when the group had no active SafeSite. */
  safeSite: { id: string; url: string } | null;
}

export interface NewPayment {
  plan: CreatePlan & { safeSite: { id: string; url: string } };
  groupId: string;
  amount: number;
  currency: Currency;
  customerEmail: string;
  customerName: string | null;
  description: string | null;
  metadata: Metadata | null;
  successUrl: string;
  cancelUrl: string;
  webhookUrl: string | null;
}

/** The group's active SafeSite whose turn it is: active sites in creation order, `turn` modulo their count. */
export async function chooseSafeSite(
  q: Queryable,
  groupId: string,
  turn: number,
): Promise<{ id: string; url: string } | null> {
  const [site] = await q.query<{ id: string; url: string }>(
    `WITH sites AS (
       SELECT id, url, row_number() OVER (ORDER BY position) - 1 AS turn, count(*) OVER () AS active
       FROM safe_sites WHERE group_id = $1 AND is_active
     )
     SELECT id, url FROM sites WHERE turn = $2 % active`,
    [groupId, turn],
  );
  return site ?? null;
}

/**
 * Writes a payment once, in its first status: `processing` with the processor's session, or
 * `failed` when the processor refused it; with its first status-history row. A second write of
 * the same transaction (a retry that took over a crashed request) changes nothing.
 */
export async function insertPayment(
  q: Queryable,
  payment: NewPayment,
  outcome:
    | { status: "processing"; processorSessionId: string; processorCheckoutUrl: string }
    | { status: "failed"; reason: string },
): Promise<void> {
  const processing = outcome.status === "processing";
  await q.query(
    `WITH payment AS (
       INSERT INTO payments (id, group_id, status, amount, currency, customer_email, customer_name, description,
         metadata, success_url, cancel_url, webhook_url, safe_site_id, safe_site_url, link_token, expires_at,
         processor_session_id, processor_checkout_url, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
         CASE WHEN $3 = 'failed' THEN now() END)
       ON CONFLICT (id) DO NOTHING
       RETURNING id, status
     )
     INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason)
     SELECT id, NULL, status, $19 FROM payment`,
    [
      payment.plan.transactionId,
      payment.groupId,
      outcome.status,
      payment.amount,
      payment.currency,
      payment.customerEmail,
      payment.customerName,
      payment.description,
      payment.metadata && JSON.stringify(payment.metadata),
      payment.successUrl,
      payment.cancelUrl,
      payment.webhookUrl,
      payment.plan.safeSite.id,
      payment.plan.safeSite.url,
      payment.plan.linkToken,
      payment.plan.expiresAt,
      processing ? outcome.processorSessionId : null,
      processing ? outcome.processorCheckoutUrl : null,
      processing ? "created" : outcome.reason,
    ],
  );
}

export interface StatusUpdate {
  paymentId: string;
  to: PaymentStatus;
  /** Statuses the payment may be in for the change to apply. */
  allowedFrom: readonly PaymentStatus[];
  setsCompletedAt: boolean;
  /** Why, for the status history: "merchant_cancel", "processor_event:evt_…", … */
  reason: string;
  /** Restricts the change to one merchant's payments. */
  groupId?: string | undefined;
  processorSessionId?: string | undefined;
  processorCheckoutUrl?: string | undefined;
  processorPaymentIntentId?: string | null | undefined;
  refundedAmount?: number | undefined;
}

/**
 * The conditional status change: locks the row, changes it only from an allowed status, and
 * writes the history row, all in one statement. Undefined when nothing changed.
 */
export async function updatePaymentStatus(
  q: Queryable,
  update: StatusUpdate,
): Promise<{ payment: PaymentRow; from: PaymentStatus } | undefined> {
  const [row] = await q.query<PaymentRow & { previous_status: PaymentStatus }>(
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
      update.paymentId,
      update.to,
      update.setsCompletedAt,
      update.allowedFrom,
      update.processorSessionId ?? null,
      update.processorCheckoutUrl ?? null,
      update.processorPaymentIntentId ?? null,
      update.refundedAmount ?? null,
      update.groupId ?? null,
      update.reason,
    ],
  );
  if (!row) return undefined;
  const { previous_status: from, ...payment } = row;
  return { payment, from };
}

/** The payment, locked until the transaction ends. */
export async function lockPayment(tx: Queryable, paymentId: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>("SELECT * FROM payments WHERE id = $1 FOR UPDATE", [paymentId]);
  return row;
}

/** Money moved on a payment the merchant no longer expects to be paid (spec §3.2): an operator decides. */
export async function flagForReconciliation(
  q: Queryable,
  paymentId: string,
  reason: string,
  paymentIntentId: string | null,
): Promise<void> {
  await q.query(
    `UPDATE payments SET needs_reconciliation = true, reconciliation_reason = $2, updated_at = now(),
       processor_payment_intent_id = COALESCE($3, processor_payment_intent_id)
     WHERE id = $1`,
    [paymentId, reason, paymentIntentId],
  );
}

export async function findPayment(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>("SELECT * FROM payments WHERE id = $1 AND group_id = $2", [
    id,
    groupId,
  ]);
  return row;
}

export async function findPaymentByLinkToken(q: Queryable, token: string): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>("SELECT * FROM payments WHERE link_token = $1", [token]);
  return row;
}

/** The processor's three ways of naming a payment, each an indexed lookup. */
export type ProcessorReference = "id" | "session" | "payment_intent";

const LOOKUP_BY_REFERENCE: Record<ProcessorReference, string> = {
  id: "SELECT * FROM payments WHERE id = $1::uuid",
  session: "SELECT * FROM payments WHERE processor_session_id = $1 LIMIT 1",
  payment_intent: "SELECT * FROM payments WHERE processor_payment_intent_id = $1 LIMIT 1",
};

export async function findPaymentBy(
  q: Queryable,
  reference: ProcessorReference,
  value: string,
): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>(LOOKUP_BY_REFERENCE[reference], [value]);
  return row;
}

export function listDueForExpiry(
  q: Queryable,
  limit: number,
): Promise<{ id: string; processor_session_id: string | null }[]> {
  return q.query(
    `SELECT id, processor_session_id FROM payments
     WHERE status = 'processing' AND expires_at <= now() ORDER BY expires_at LIMIT $1`,
    [limit],
  );
}

export function listFlaggedForReconciliation(q: Queryable, limit: number): Promise<PaymentRow[]> {
  return q.query<PaymentRow>(
    "SELECT * FROM payments WHERE needs_reconciliation ORDER BY created_at LIMIT $1",
    [limit],
  );
}

export interface PaymentFilter {
  status?: PaymentStatus | undefined;
  /** created_at at or after */
  from?: Date | undefined;
  /** created_at before */
  to?: Date | undefined;
  transactionId?: string | undefined;
  customerEmail?: string | undefined;
  /** Keyset cursor: rows after this payment in the listing's order (newest first). */
  afterId?: string | undefined;
}

/** A group's payments, newest first, by keyset so a page costs the same at any depth. */
export function listPayments(
  q: Queryable,
  groupId: string,
  filter: PaymentFilter,
  limit: number,
): Promise<PaymentRow[]> {
  return q.query<PaymentRow>(
    `SELECT * FROM payments
     WHERE group_id = $1
       AND ($2::text IS NULL OR status = $2)
       AND ($3::timestamptz IS NULL OR created_at >= $3)
       AND ($4::timestamptz IS NULL OR created_at < $4)
       AND ($5::uuid IS NULL OR id = $5)
       AND ($6::text IS NULL OR lower(customer_email) = lower($6))
       AND ($7::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM payments WHERE id = $7))
     ORDER BY created_at DESC, id DESC
     LIMIT $8`,
    [
      groupId,
      filter.status ?? null,
      filter.from ?? null,
      filter.to ?? null,
      filter.transactionId ?? null,
      filter.customerEmail ?? null,
      filter.afterId ?? null,
      limit,
    ],
  );
}

export interface StatusChangeRow {
  from_status: PaymentStatus | null;
  to_status: PaymentStatus;
  reason: string;
  created_at: Date;
}

export function listStatusChanges(q: Queryable, paymentId: string): Promise<StatusChangeRow[]> {
  return q.query<StatusChangeRow>(
    "SELECT from_status, to_status, reason, created_at FROM payment_status_changes WHERE payment_id = $1 ORDER BY id",
    [paymentId],
  );
}

/** Records a processor event's id; false when it was seen before (a replay). */
export async function recordProcessorEvent(
  q: Queryable,
  event: { id: string; type: string; paymentId: string | null; mismatch: string | null },
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO processor_events (id, type, payment_id, mismatch) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [event.id, event.type, event.paymentId, event.mismatch],
  );
  return rows.length === 1;
}

export interface MismatchRow {
  id: string;
  type: string;
  payment_id: string | null;
  group_id: string | null;
  mismatch: string;
  received_at: Date;
}

/** Processor events refused because they did not match the payment they named, oldest first. */
export function listProcessorMismatches(q: Queryable, limit: number): Promise<MismatchRow[]> {
  return q.query<MismatchRow>(
    `SELECT e.id, e.type, e.payment_id, p.group_id, e.mismatch, e.received_at
     FROM processor_events e LEFT JOIN payments p ON p.id = e.payment_id
     WHERE e.mismatch IS NOT NULL AND e.resolved_at IS NULL ORDER BY e.received_at LIMIT $1`,
    [limit],
  );
}

export interface KeyClaim {
  groupId: string;
  key: string;
  fingerprint: string;
  retentionSeconds: number;
  leaseSeconds: number;
  /** The plan for a fresh claim; the site is chosen in the statement, by `turn`. */
  fresh: Omit<CreatePlan, "safeSite">;
  turn: number;
}

/**
 * Takes an Idempotency-Key and returns the plan this request must carry out, or undefined when
 * another request holds the key. A key unused for `retentionSeconds` is taken as new; a key whose
 * request died unanswered (its lease ran out) is taken over with its original plan.
 */
export async function claimIdempotencyKey(q: Queryable, claim: KeyClaim): Promise<CreatePlan | undefined> {
  const [row] = await q.query<{
    transaction_id: string;
    link_token: string;
    link_expires_at: Date;
    safe_site_id: string | null;
    safe_site_url: string | null;
  }>(
    `WITH site AS (
       SELECT id, url FROM (
         SELECT id, url, row_number() OVER (ORDER BY position) - 1 AS turn, count(*) OVER () AS active
         FROM safe_sites WHERE group_id = $1 AND is_active
       ) sites WHERE turn = $9 % active
     )
     INSERT INTO idempotency_keys AS k (group_id, key, request_hash, transaction_id, link_token, link_expires_at,
       safe_site_id, safe_site_url, locked_until)
     VALUES ($1, $2, $3, $4, $5, $6, (SELECT id FROM site), (SELECT url FROM site), now() + make_interval(secs => $8))
     ON CONFLICT (group_id, key) DO UPDATE SET
       locked_until = EXCLUDED.locked_until,
       request_hash = EXCLUDED.request_hash,
       response = NULL,
       created_at = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN now() ELSE k.created_at END,
       transaction_id = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN EXCLUDED.transaction_id ELSE k.transaction_id END,
       link_token = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN EXCLUDED.link_token ELSE k.link_token END,
       link_expires_at = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN EXCLUDED.link_expires_at ELSE k.link_expires_at END,
       safe_site_id = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN EXCLUDED.safe_site_id ELSE k.safe_site_id END,
       safe_site_url = CASE WHEN k.created_at < now() - make_interval(secs => $7) THEN EXCLUDED.safe_site_url ELSE k.safe_site_url END
     WHERE k.created_at < now() - make_interval(secs => $7)
        OR (k.response IS NULL AND k.locked_until < now() AND k.request_hash = EXCLUDED.request_hash)
     RETURNING transaction_id, link_token, link_expires_at, safe_site_id, safe_site_url`,
    [
      claim.groupId,
      claim.key,
      claim.fingerprint,
      claim.fresh.transactionId,
      claim.fresh.linkToken,
      claim.fresh.expiresAt,
      claim.retentionSeconds,
      claim.leaseSeconds,
      claim.turn,
    ],
  );
  if (!row) return undefined;
  return {
    transactionId: row.transaction_id,
    linkToken: row.link_token,
    expiresAt: row.link_expires_at,
    safeSite: row.safe_site_id && row.safe_site_url ? { id: row.safe_site_id, url: row.safe_site_url } : null,
  };
}

export async function findIdempotencyKey(
  q: Queryable,
  groupId: string,
  key: string,
): Promise<{ request_hash: string; response: unknown } | undefined> {
  const [row] = await q.query<{ request_hash: string; response: unknown }>(
    "SELECT request_hash, response FROM idempotency_keys WHERE group_id = $1 AND key = $2",
    [groupId, key],
  );
  return row;
}

export async function storeIdempotentResponse(
  q: Queryable,
  groupId: string,
  key: string,
  response: unknown,
): Promise<void> {
  await q.query("UPDATE idempotency_keys SET response = $3 WHERE group_id = $1 AND key = $2", [
    groupId,
    key,
    JSON.stringify(response),
  ]);
}

/** A failed request frees its key so the merchant can retry with it. */
export async function releaseIdempotencyKey(q: Queryable, groupId: string, key: string): Promise<void> {
  await q.query("DELETE FROM idempotency_keys WHERE group_id = $1 AND key = $2 AND response IS NULL", [
    groupId,
    key,
  ]);
}

export type RefundReason = "requested_by_customer" | "duplicate" | "fraudulent";

export interface RefundRow {
  id: string;
  payment_id: string;
  group_id: string;
  amount: number;
  currency: Currency;
  reason: RefundReason | null;
  status: "pending" | "succeeded" | "failed";
  processor_refund_id: string | null;
  requested_by: string;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Reserves `amount` (or all that remains) of a refundable payment for a new pending refund, in
 * one statement: the conditional update is what stops concurrent refunds from together exceeding
 * the payment. Undefined when the payment is not refundable or the amount does not fit.
 */
export async function reserveRefund(
  q: Queryable,
  refund: {
    id: string;
    paymentId: string;
    groupId: string;
    amount: number | null;
    reason: RefundReason | null;
    requestedBy: string;
  },
): Promise<{ refund: RefundRow; paymentIntentId: string | null } | undefined> {
  const [row] = await q.query<RefundRow & { payment_intent_id: string | null }>(
    `WITH current AS (
       SELECT id, group_id, currency, refund_reserved, processor_payment_intent_id,
         COALESCE($4, amount - refund_reserved) AS wanted
       FROM payments WHERE id = $2 AND group_id = $3 FOR UPDATE
     ), reserved AS (
       UPDATE payments p SET refund_reserved = c.refund_reserved + c.wanted, updated_at = now()
       FROM current c
       WHERE p.id = c.id AND p.status IN ('succeeded', 'partially_refunded')
         AND c.wanted >= 1 AND c.refund_reserved + c.wanted <= p.amount
       RETURNING c.*
     ), inserted AS (
       INSERT INTO refunds (id, payment_id, group_id, amount, currency, reason, status, requested_by)
       SELECT $1, id, group_id, wanted, currency, $5, 'pending', $6 FROM reserved
       RETURNING *
     )
     SELECT inserted.*, reserved.processor_payment_intent_id AS payment_intent_id FROM inserted, reserved`,
    [refund.id, refund.paymentId, refund.groupId, refund.amount, refund.reason, refund.requestedBy],
  );
  if (!row) return undefined;
  const { payment_intent_id: paymentIntentId, ...stored } = row;
  return { refund: stored, paymentIntentId };
}

/** The processor's answer to a pending refund; a failed one gives its reservation back. */
export async function settleRefund(
  q: Queryable,
  refundId: string,
  outcome: { status: "succeeded"; processorRefundId: string } | { status: "failed"; reason: string },
): Promise<RefundRow | undefined> {
  const failed = outcome.status === "failed";
  const [row] = await q.query<RefundRow>(
    `WITH settled AS (
       UPDATE refunds SET status = $2, processor_refund_id = $3, failure_reason = $4, updated_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING *
     ), released AS (
       UPDATE payments p SET refund_reserved = p.refund_reserved - s.amount
       FROM settled s WHERE $5::boolean AND p.id = s.payment_id
     )
     SELECT * FROM settled`,
    [
      refundId,
      outcome.status,
      failed ? null : outcome.processorRefundId,
      failed ? outcome.reason : null,
      failed,
    ],
  );
  return row;
}

export function listRefunds(q: Queryable, paymentId: string): Promise<RefundRow[]> {
  return q.query<RefundRow>("SELECT * FROM refunds WHERE payment_id = $1 ORDER BY position", [paymentId]);
}

/**
 * After the processor reports a cumulative refunded total: whatever our own pending and
 * succeeded refunds do not account for was refunded at the processor directly. It is recorded as
 * such, and reserved, so the API never refunds it again.
 */
export async function recordProcessorRefunds(
  q: Queryable,
  payment: { id: string; groupId: string; currency: Currency },
  refundedTotal: number,
  refundId: string,
): Promise<void> {
  await q.query(
    `WITH known AS (
       SELECT COALESCE(sum(amount), 0)::int AS total FROM refunds
       WHERE payment_id = $1 AND status IN ('pending', 'succeeded')
     ), learnt AS (
       INSERT INTO refunds (id, payment_id, group_id, amount, currency, status, requested_by)
       SELECT $4, $1, $2, $5 - known.total, $3, 'succeeded', 'processor' FROM known WHERE $5 > known.total
       RETURNING amount
     )
     UPDATE payments SET refund_reserved = LEAST(amount, GREATEST(refund_reserved, $5)) WHERE id = $1`,
    [payment.id, payment.groupId, payment.currency, refundId, refundedTotal],
  );
}

export interface DailyTotalRow {
  day: string;
  status: PaymentStatus;
  currency: Currency;
  count: number;
  amount: number;
}

/** Per UTC day, status and currency: how many payments were created and for how much. */
export function dailyPaymentTotals(q: Queryable, groupId: string, since: Date): Promise<DailyTotalRow[]> {
  return q.query<DailyTotalRow>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status, currency,
            count(*)::int AS count, sum(amount)::float8 AS amount
     FROM payments WHERE group_id = $1 AND created_at >= $2
     GROUP BY 1, 2, 3 ORDER BY 1`,
    [groupId, since],
  );
}

/** Closes a paid-after-close item: the operator's note is kept with the payment. */
export async function resolvePaymentReconciliation(
  q: Queryable,
  paymentId: string,
  note: string,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payments SET needs_reconciliation = false, reconciliation_note = $2, updated_at = now()
     WHERE id = $1 AND needs_reconciliation RETURNING id`,
    [paymentId, note],
  );
  return rows.length === 1;
}

/** Closes a processor-mismatch item. */
export async function resolveProcessorMismatch(
  q: Queryable,
  eventId: string,
  note: string,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE processor_events SET resolved_at = now(), resolution_note = $2
     WHERE id = $1 AND mismatch IS NOT NULL AND resolved_at IS NULL RETURNING id`,
    [eventId, note],
  );
  return rows.length === 1;
}
