// The statements behind Idempotency-Key: one row per (group, scope, key) holding the request's
// fingerprint, the plan a retry must carry out again, and the answer once there is one.
import type { Queryable } from "../../platform/db/database.ts";

export interface KeyClaim {
  groupId: string;
  /** "create", or "refund:<transactionId>": the same key may name one create and one refund per payment. */
  scope: string;
  key: string;
  fingerprint: string;
  retentionSeconds: number;
  leaseSeconds: number;
  /** The plan for a fresh claim. */
  fresh: unknown;
}

/** A key answers with its first result for 24 hours; after that it is taken as new, and pruned. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

/**
 * Takes an Idempotency-Key and returns the plan this request must carry out, or undefined when
 * another request holds the key. A key unused for `retentionSeconds` is taken as new; a key whose
 * request died unanswered (its lease ran out) is taken over with its original plan.
 */
export async function claimIdempotencyKey(q: Queryable, claim: KeyClaim): Promise<unknown | undefined> {
  const [row] = await q.query<{ plan: unknown }>(
    `INSERT INTO idempotency_keys AS k (group_id, scope, key, request_hash, plan, locked_until)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $7))
     ON CONFLICT (group_id, scope, key) DO UPDATE SET
       locked_until = EXCLUDED.locked_until,
       request_hash = EXCLUDED.request_hash,
       response = NULL,
       created_at = CASE WHEN k.created_at < now() - make_interval(secs => $6) THEN now() ELSE k.created_at END,
       plan = CASE WHEN k.created_at < now() - make_interval(secs => $6) THEN EXCLUDED.plan ELSE k.plan END
     WHERE k.created_at < now() - make_interval(secs => $6)
        OR (k.response IS NULL AND k.locked_until < now() AND k.request_hash = EXCLUDED.request_hash)
     RETURNING plan`,
    [
      claim.groupId,
      claim.scope,
      claim.key,
      claim.fingerprint,
      JSON.stringify(claim.fresh),
      claim.retentionSeconds,
      claim.leaseSeconds,
    ],
  );
  return row?.plan;
}

export async function findIdempotencyKey(
  q: Queryable,
  groupId: string,
  scope: string,
  key: string,
): Promise<{ request_hash: string; response: unknown } | undefined> {
  const [row] = await q.query<{ request_hash: string; response: unknown }>(
    "SELECT request_hash, response FROM idempotency_keys WHERE group_id = $1 AND scope = $2 AND key = $3",
    [groupId, scope, key],
  );
  return row;
}

export async function storeIdempotentResponse(
  q: Queryable,
  claim: { groupId: string; scope: string; key: string },
  response: unknown,
): Promise<void> {
  await q.query("UPDATE idempotency_keys SET response = $4 WHERE group_id = $1 AND scope = $2 AND key = $3", [
    claim.groupId,
    claim.scope,
    claim.key,
    JSON.stringify(response),
  ]);
}

/** A refused request frees its key so the merchant can retry with it. */
export async function releaseIdempotencyKey(
  q: Queryable,
  claim: { groupId: string; scope: string; key: string },
): Promise<void> {
  await q.query(
    "DELETE FROM idempotency_keys WHERE group_id = $1 AND scope = $2 AND key = $3 AND response IS NULL",
    [claim.groupId, claim.scope, claim.key],
  );
}

/**
 * The create requests that made these payments: their fingerprints hashed the customer's e-mail.
 * The key stays taken (a retry with it is a conflict, never a second payment); what is left is
 * the answer, which names no customer.
 */
export async function forgetCreateRequests(
  q: Queryable,
  groupIds: readonly string[],
  paymentIds: readonly string[],
): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET request_hash = 'erased'
     WHERE group_id = ANY ($1::uuid[]) AND scope = 'create' AND plan->>'transactionId' = ANY ($2::text[])`,
    [groupIds, paymentIds],
  );
}

/** One batch of keys made before `before` (IDEMPOTENCY_RETENTION_SECONDS ago), not held by a request under way. */
export async function deleteExpiredKeys(q: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM idempotency_keys WHERE (group_id, scope, key) IN (
       SELECT group_id, scope, key FROM idempotency_keys
       WHERE created_at < $1 AND (locked_until IS NULL OR locked_until < now())
       ORDER BY created_at LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
