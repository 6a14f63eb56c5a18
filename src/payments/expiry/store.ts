import type { Queryable } from "../../platform/db/database.ts";

export interface DuePayment {
  id: string;
  processor: string;
  processor_checkout_id: string | null;
}

/**
 * Processing payments whose link ran out by `now` (the service's clock, which set their expiry),
 * claimed for `leaseMs` on the database's (leases are between instances): rows another instance holds are
 * skipped, and a claimed row is not offered again until its lease ends, so N sweepers ask the
 * processor once per payment, and a processor that does not answer is asked again only then.
 */
export function claimDueForExpiry(
  q: Queryable,
  limit: number,
  leaseMs: number,
  now: Date,
): Promise<DuePayment[]> {
  return q.query<DuePayment>(
    `WITH due AS (
       SELECT id FROM payments
       WHERE status = 'processing' AND expires_at <= $3
         AND (expiry_claimed_until IS NULL OR expiry_claimed_until <= now())
       ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE payments p SET expiry_claimed_until = now() + make_interval(secs => $2::double precision / 1000)
     FROM due WHERE p.id = due.id
     RETURNING p.id, p.processor, p.processor_checkout_id`,
    [limit, leaseMs, now],
  );
}
