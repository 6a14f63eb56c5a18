// Every statement on refunds: the reservation, settling, and the pending ones asked about again.
import type { Queryable } from "../../platform/db/database.ts";
import type { Currency } from "../../platform/format/money.ts";
import type { RefundReason } from "../../processor/port.ts";
import { closedRefundableBy, REFUNDABLE_STATUSES, type Refunder } from "../core/status.ts";

export type { RefundReason };

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
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A refund with what asking the processor about it needs. */
export interface RefundAtProcessor extends RefundRow {
  processor: string;
  processor_payment_id: string | null;
}

/**
 * Reserves `amount` (or all that remains) of a refundable payment for a new pending refund, in
 * one statement: the conditional update is what stops concurrent refunds from together exceeding
 * the payment. The rule is refundableAmount's (core/status.ts). Undefined when the payment is not
 * refundable or the amount does not fit.
 */
export async function reserveRefund(
  q: Queryable,
  refund: {
    id: string;
    paymentId: string;
    /** Null for an operator, who may refund any group's payment. */
    groupId: string | null;
    refunder: Refunder;
    amount: number | null;
    reason: RefundReason | null;
    requestedBy: string;
    /** Nobody else asks the processor about it before this: the request's own call is running. */
    busyForMs: number;
  },
): Promise<RefundAtProcessor | undefined> {
  const [row] = await q.query<RefundAtProcessor>(
    `WITH current AS (
       SELECT id, group_id, currency, refund_reserved, processor, processor_payment_id,
         COALESCE($4, amount - refund_reserved) AS wanted
       FROM payments WHERE id = $2 AND ($3::uuid IS NULL OR group_id = $3) FOR UPDATE
     ), reserved AS (
       UPDATE payments p SET refund_reserved = c.refund_reserved + c.wanted, updated_at = now()
       FROM current c
       WHERE p.id = c.id
         AND (p.status = ANY($8::text[]) OR (p.paid_at_processor AND p.status = ANY($9::text[])))
         AND c.wanted >= 1 AND c.refund_reserved + c.wanted <= p.amount
       RETURNING c.*
     ), inserted AS (
       INSERT INTO refunds (id, payment_id, group_id, amount, currency, reason, status, requested_by,
         next_attempt_at)
       SELECT $1, id, group_id, wanted, currency, $5, 'pending', $6,
         now() + make_interval(secs => $7::double precision / 1000)
       FROM reserved
       RETURNING *
     )
     SELECT inserted.*, reserved.processor, reserved.processor_payment_id FROM inserted, reserved`,
    [
      refund.id,
      refund.paymentId,
      refund.groupId,
      refund.amount,
      refund.reason,
      refund.requestedBy,
      refund.busyForMs,
      REFUNDABLE_STATUSES,
      closedRefundableBy(refund.refunder),
    ],
  );
  return row;
}

const WITH_PAYMENT = `SELECT r.*, p.processor, p.processor_payment_id
  FROM refunds r JOIN payments p ON p.id = r.payment_id`;

export async function findRefund(q: Queryable, refundId: string): Promise<RefundAtProcessor | undefined> {
  const [row] = await q.query<RefundAtProcessor>(`${WITH_PAYMENT} WHERE r.id = $1`, [refundId]);
  return row;
}

/**
 * Our refund a processor refund is about: the one it names by id, else a pending one of the same
 * payment and amount whose id the processor carries for us (a hint, so it must agree).
 */
export async function findRefundOfProcessor(
  q: Queryable,
  paymentId: string,
  processorRefund: { id: string; amount: number; refundIdHint: string | null },
): Promise<RefundRow | undefined> {
  const [row] = await q.query<RefundRow>(
    `SELECT * FROM refunds WHERE payment_id = $1 AND (processor_refund_id = $2
       OR (id::text = $3 AND processor_refund_id IS NULL AND amount = $4 AND status = 'pending'))
     ORDER BY processor_refund_id IS NULL LIMIT 1`,
    [paymentId, processorRefund.id, processorRefund.refundIdHint, processorRefund.amount],
  );
  return row;
}

/** The processor's final answer to a pending refund; a failed one gives its reservation back. */
export async function settleRefund(
  q: Queryable,
  refundId: string,
  outcome: { status: "succeeded" | "failed"; processorRefundId: string | null; reason?: string },
): Promise<RefundRow | undefined> {
  const failed = outcome.status === "failed";
  const [row] = await q.query<RefundRow>(
    `WITH settled AS (
       UPDATE refunds SET status = $2, processor_refund_id = COALESCE($3, processor_refund_id),
         failure_reason = $4, next_attempt_at = NULL, updated_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING *
     ), released AS (
       UPDATE payments p SET refund_reserved = p.refund_reserved - s.amount
       FROM settled s WHERE $5::boolean AND p.id = s.payment_id
     )
     SELECT * FROM settled`,
    [refundId, outcome.status, outcome.processorRefundId, failed ? (outcome.reason ?? null) : null, failed],
  );
  return row;
}

/** The outcome is not known yet: keep the refund pending and ask again after `retryInMs`. */
export async function deferRefund(
  q: Queryable,
  refundId: string,
  change: { processorRefundId: string | null; retryInMs: number },
): Promise<RefundRow | undefined> {
  const [row] = await q.query<RefundRow>(
    `UPDATE refunds SET attempts = attempts + 1, processor_refund_id = COALESCE($2, processor_refund_id),
       next_attempt_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
     WHERE id = $1 AND status = 'pending' RETURNING *`,
    [refundId, change.processorRefundId, change.retryInMs],
  );
  return row;
}

/**
 * Pending refunds whose time to be asked about has come, claimed for `leaseMs` so that no other
 * instance asks about them meanwhile.
 */
export function claimDueRefunds(q: Queryable, limit: number, leaseMs: number): Promise<RefundAtProcessor[]> {
  return q.query<RefundAtProcessor>(
    `WITH due AS (
       SELECT id FROM refunds WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE refunds r SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
       FROM due WHERE r.id = due.id RETURNING r.*
     )
     SELECT claimed.*, p.processor, p.processor_payment_id FROM claimed JOIN payments p ON p.id = claimed.payment_id`,
    [limit, leaseMs],
  );
}

/** A payment's pending refunds, to be settled against the processor's list. */
export function listPendingRefunds(q: Queryable, paymentId: string): Promise<RefundAtProcessor[]> {
  return q.query<RefundAtProcessor>(`${WITH_PAYMENT} WHERE r.payment_id = $1 AND r.status = 'pending'`, [
    paymentId,
  ]);
}

export function listRefunds(q: Queryable, paymentId: string): Promise<RefundRow[]> {
  return q.query<RefundRow>("SELECT * FROM refunds WHERE payment_id = $1 ORDER BY position", [paymentId]);
}
