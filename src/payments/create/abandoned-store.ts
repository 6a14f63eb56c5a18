// Every statement on abandoned_checkouts: remembering a create attempt given up, claiming the due
// ones, and recording how each ended.
import type { Queryable } from "../../platform/db/database.ts";

export interface AbandonedRow {
  id: string;
  processor: string;
  idempotency_key: string;
  transaction_id: string;
  request: unknown;
  created_at: Date;
}

export async function rememberAbandoned(
  q: Queryable,
  attempt: {
    processor: string;
    idempotencyKey: string;
    transactionId: string;
    groupId: string;
    request: unknown;
    outcome: string;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO abandoned_checkouts (processor, idempotency_key, transaction_id, request, outcome, group_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (processor, idempotency_key) DO UPDATE
       SET closed_at = NULL, resolution = NULL, next_attempt_at = now(), outcome = EXCLUDED.outcome`,
    [
      attempt.processor,
      attempt.idempotencyKey,
      attempt.transactionId,
      JSON.stringify(attempt.request),
      attempt.outcome,
      attempt.groupId,
    ],
  );
}

/** The due attempts, each claimed for `leaseMs` so no other instance takes it meanwhile. */
export function claimDueAbandoned(q: Queryable, limit: number, leaseMs: number): Promise<AbandonedRow[]> {
  return q.query<AbandonedRow>(
    `UPDATE abandoned_checkouts SET next_attempt_at = now() + $2 * interval '1 millisecond', attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM abandoned_checkouts WHERE closed_at IS NULL AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id::text AS id, processor, idempotency_key, transaction_id, request, created_at`,
    [limit, leaseMs],
  );
}

/** Whether a payment of this transaction issued its link through this processor (a retry took the checkout over). */
export async function checkoutInUse(
  q: Queryable,
  transactionId: string,
  processor: string,
): Promise<boolean> {
  const rows = await q.query(
    "SELECT 1 FROM payments WHERE id = $1 AND processor = $2 AND processor_checkout_id IS NOT NULL",
    [transactionId, processor],
  );
  return rows.length > 0;
}

export async function closeAbandoned(
  q: Queryable,
  id: string,
  ending: {
    resolution: "closed" | "in_use" | "paid" | "refused";
    checkoutId?: string | null;
    paymentRef?: string | null;
  },
): Promise<void> {
  await q.query(
    `UPDATE abandoned_checkouts SET closed_at = now(), resolution = $2, checkout_id = $3, payment_ref = $4,
       request = CASE
         WHEN EXISTS (SELECT 1 FROM payments p WHERE p.id = transaction_id AND p.erased_at IS NOT NULL)
         THEN ${ERASED_REQUEST} ELSE request END
     WHERE id = $1 AND closed_at IS NULL`,
    [id, ending.resolution, ending.checkoutId ?? null, ending.paymentRef ?? null],
  );
}

/** Whether this transaction's payment had its customer erased. */
export async function paymentErased(q: Queryable, transactionId: string): Promise<boolean> {
  const rows = await q.query("SELECT 1 FROM payments WHERE id = $1 AND erased_at IS NOT NULL", [
    transactionId,
  ]);
  return rows.length === 1;
}

/** Money landed on an abandoned checkout: an item the operator refunds in full. */
export async function openOrphanItem(q: Queryable, abandonedId: string, detail: string): Promise<void> {
  await q.query(
    `INSERT INTO reconciliation_items (payment_id, kind, detail, abandoned_checkout_id)
     VALUES (NULL, 'orphan_checkout_paid', $2, $1)
     ON CONFLICT (abandoned_checkout_id) WHERE abandoned_checkout_id IS NOT NULL DO NOTHING`,
    [abandonedId, detail],
  );
}

const ERASED_REQUEST = `(request - 'customerEmail') || '{"lineItemName": "Payment"}'::jsonb`;

/**
 * An erased customer's address and the item's words leave the remembered requests: those of
 * these payments, and those for `emails` in `groupIds` (null: any group) whose create left no
 * payment at all. Only attempts already closed: an open one is still asked again with its exact
 * request (the processor's idempotency key holds it to those parameters), and is scrubbed when it
 * closes if its payment was erased meanwhile.
 */
export async function eraseAbandonedRequests(
  q: Queryable,
  paymentIds: readonly string[],
  emails: readonly string[],
  groupIds: readonly string[] | null,
): Promise<void> {
  await q.query(
    `UPDATE abandoned_checkouts SET request = ${ERASED_REQUEST}
     WHERE closed_at IS NOT NULL AND (transaction_id = ANY ($1::uuid[])
       OR (lower(request->>'customerEmail') = ANY ($2::text[]) AND ($3::uuid[] IS NULL OR group_id = ANY ($3::uuid[]))))`,
    [paymentIds, emails.map((email) => email.toLowerCase()), groupIds],
  );
}

/** One batch of attempts closed before `before` that no reconciliation item refers to. */
export async function deleteClosedAbandonedBefore(
  q: Queryable,
  before: Date,
  limit: number,
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM abandoned_checkouts WHERE id IN (
       SELECT a.id FROM abandoned_checkouts a
       WHERE a.closed_at < $1
         AND NOT EXISTS (SELECT 1 FROM reconciliation_items i WHERE i.abandoned_checkout_id = a.id)
       LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
