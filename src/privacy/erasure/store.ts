// The statements that take a customer out of payments: by e-mail (a request), or by age (retention).

import type { PaymentStatus } from "../../payments/core/status.ts";
import type { Queryable } from "../../platform/db/database.ts";

export interface ErasedPayment {
  id: string;
  group_id: string;
  /** The address it had, lower-cased: what the processor's own records are asked to forget. */
  email: string;
}

const ERASE = `customer_email = NULL, customer_name = NULL, description = NULL, metadata = NULL, erased_at = now()`;

/**
 * The payments of one group (or of every group) whose customer e-mail is `email`, any case. Each
 * group's payments are found through its e-mail index. A row another transaction is changing is
 * waited for and checked again, so a payment paid or refunded meanwhile is erased as it is now;
 * one already erased no longer matches.
 */
export function erasePaymentsOf(
  q: Queryable,
  email: string,
  groupId: string | null,
): Promise<ErasedPayment[]> {
  return q.query<ErasedPayment>(
    `WITH matched AS (
       SELECT p.id FROM groups g CROSS JOIN LATERAL (
         SELECT id FROM payments WHERE group_id = g.id AND lower(customer_email) = lower($2)
       ) p
       WHERE $1::uuid IS NULL OR g.id = $1
     )
     UPDATE payments SET ${ERASE}
     WHERE id IN (SELECT id FROM matched) AND lower(customer_email) = lower($2)
     RETURNING id, group_id, lower($2) AS email`,
    [groupId, email],
  );
}

/**
 * One batch of payments last changed before `before` into one of `settledStatuses`, with no
 * refund pending: erased as a request would. Rows another transaction holds wait for the next run.
 */
export function eraseSettledPaymentsBefore(
  q: Queryable,
  before: Date,
  settledStatuses: readonly PaymentStatus[],
  limit: number,
): Promise<ErasedPayment[]> {
  return q.query<ErasedPayment>(
    `WITH due AS (
       SELECT p.id, lower(p.customer_email) AS email FROM payments p
       WHERE p.erased_at IS NULL AND p.updated_at < $1 AND p.status = ANY ($2::text[])
         AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.status = 'pending')
       ORDER BY p.updated_at LIMIT $3
       FOR UPDATE OF p SKIP LOCKED
     )
     UPDATE payments p SET ${ERASE}
     FROM due WHERE p.id = due.id
     RETURNING p.id, p.group_id, due.email`,
    [before, settledStatuses, limit],
  );
}

export async function groupExists(q: Queryable, groupId: string): Promise<boolean> {
  return (await q.query("SELECT 1 FROM groups WHERE id = $1", [groupId])).length === 1;
}
