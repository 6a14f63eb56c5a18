// The delivery queue: what dispatchers claim, and the outcome of each attempt.
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";

/** The error recorded for an attempt whose sender stopped before it could record the outcome. */
export const INTERRUPTED_ATTEMPT = "interrupted: the sending instance stopped before recording this attempt";

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  url: string;
  destination: string;
  attempts: number;
  sent_timestamp: string;
  created_at: Date;
  event: string;
  payment_id: string;
  payload: Record<string, unknown>;
  /** Sealed; null when the delivery's endpoint was deleted after it was queued. */
  webhook_secret: string | null;
  /** The group's (or the endpoint's) earlier secrets, each signing until its expiresAt (ISO 8601). */
  previous_webhook_secrets: { secret: string; expiresAt: string }[];
  /** The request that queued it, while traces were on: the attempt's span links to it. */
  traceparent: string | null;
  /** The endpoint it goes to; null: the payment's or the group's URL. */
  endpoint_id: string | null;
}

export interface ClaimRequest {
  limit: number;
  /** Receivers this dispatcher holds enough for until their next refill: their rows are skipped. */
  saturated: string[];
  /**
   * Deliveries this dispatcher holds per receiver (in flight or waiting for a slot), counted
   * against that receiver's budget: at most `limit` held.
   */
  held: { destination: string; count: number; limit: number }[];
  /** At most this many deliveries held per receiver not in `held`. */
  holdLimit: number;
  leaseMs: number;
  /** The body `timestamp` of a first attempt; retries keep theirs. */
  sentTimestamp: string;
}

// Each dispatcher runs it many times a second while a backlog drains: prepared.
const CLAIM_DUE_DELIVERIES = prepared(
  `WITH due AS (
       SELECT id, destination, next_attempt_at
       FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         -- Concatenated so the planner has no statistics for it: with one receiver holding most
         -- pending rows (one merchant's backlog), it would rate every row as saturated and sort a
         -- seq scan of the backlog instead of reading the due index in order.
         AND NOT ((destination || '') = ANY($2::text[]))
       ORDER BY next_attempt_at
       LIMIT $1
     ), ranked AS (
       SELECT due.id, COALESCE(busy.hold_limit, $7) AS hold_limit,
         row_number() OVER (PARTITION BY due.destination ORDER BY due.next_attempt_at) + COALESCE(busy.in_flight, 0) AS slot
       FROM due LEFT JOIN unnest($3::text[], $4::int[], $9::int[]) AS busy(destination, in_flight, hold_limit) USING (destination)
     ), chosen AS (
       SELECT d.id, d.attempts, d.state, d.next_attempt_at, d.locked_until
       FROM webhook_deliveries d
       -- Ids as an array: primary-key lookups, where a join was planned as a hash over a seq scan.
       -- Checked after locking, not here: with the due index's conditions in this scan, statistics
       -- that still count few pending rows (a backlog that arrived since the last ANALYZE) made it
       -- walk every due row through that index, once per claim, instead of looking up these ids.
       WHERE d.id = ANY (ARRAY(SELECT id FROM ranked WHERE slot <= hold_limit))
       FOR UPDATE OF d SKIP LOCKED
     ), locked AS (
       -- A locked row reads as its latest version: one leased or finished by someone else since
       -- the read above fails here.
       SELECT id, attempts, locked_until IS NOT NULL AS interrupted FROM chosen
       WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
     ), interrupted AS (
       -- A lease that ran out unrecorded: the instance died mid-attempt. The log says so.
       INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
       SELECT id, attempts, now(), NULL, $8, 0 FROM locked WHERE interrupted
     )
     UPDATE webhook_deliveries d SET
       locked_until = now() + make_interval(secs => $5::double precision / 1000),
       attempts = d.attempts + 1,
       sent_timestamp = COALESCE(d.sent_timestamp, $6)
     FROM webhook_events e JOIN groups g ON g.id = e.group_id
     WHERE d.id = ANY (ARRAY(SELECT id FROM locked)) AND e.id = d.event_id AND e.created_at = d.event_created_at
     RETURNING d.id, d.event_id, d.url, d.destination, d.attempts, d.sent_timestamp, d.created_at, e.event, e.payment_id,
       e.payload, d.traceparent, d.endpoint_id,
       -- An endpoint's delivery is signed with the endpoint's own secrets, any other with the group's.
       CASE WHEN d.endpoint_id IS NULL THEN g.webhook_secret
         ELSE (SELECT ep.secret FROM webhook_endpoints ep WHERE ep.id = d.endpoint_id) END AS webhook_secret,
       CASE WHEN d.endpoint_id IS NULL THEN g.previous_webhook_secrets
         ELSE (SELECT ep.previous_secrets FROM webhook_endpoints ep WHERE ep.id = d.endpoint_id) END
         AS previous_webhook_secrets`,
);

/**
 * One statement: read due rows, keep each receiver within its hold limit, lock the chosen ones
 * (skipping rows another dispatcher holds) and lease them. Only the chosen rows are locked: a row
 * lock is a write, and most of a backlog's due rows are past a receiver's budget. A row leased by
 * someone else between the read and the lock fails the recheck and is skipped. The row locks end
 * with the statement; the lease (locked_until) keeps others away until the attempt is recorded.
 */
export function claimDueDeliveries(q: Queryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  return q.query<ClaimedDelivery>(CLAIM_DUE_DELIVERIES, [
    request.limit,
    request.saturated,
    request.held.map((entry) => entry.destination),
    request.held.map((entry) => entry.count),
    request.leaseMs,
    request.sentTimestamp,
    request.holdLimit,
    INTERRUPTED_ATTEMPT,
    request.held.map((entry) => entry.limit),
  ]);
}

/**
 * Whether any delivery is due and unleased. Asked after a claim that found nothing by a dispatcher
 * holding nothing, which then chose every receiver's oldest rows: a yes means another dispatcher
 * was claiming those rows at that moment (row locks skipped, leases not yet committed).
 */
export async function anyDueDeliveries(q: Queryable): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM webhook_deliveries
     WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
     LIMIT 1`,
  );
  return rows.length > 0;
}

/**
 * Gives back leases on claimed deliveries that were never sent (a dispatcher stopping with some
 * still waiting for a slot): each row returns to what it was before the claim. A row whose attempt
 * count moved on was claimed again by someone else after our lease, and is left alone.
 */
export async function releaseUnsentClaims(
  q: Queryable,
  claims: readonly Pick<ClaimedDelivery, "id" | "attempts">[],
): Promise<void> {
  if (claims.length === 0) return;
  await q.query(
    `UPDATE webhook_deliveries d SET
       locked_until = NULL,
       attempts = d.attempts - 1,
       sent_timestamp = CASE WHEN d.attempts = 1 THEN NULL ELSE d.sent_timestamp END
     FROM unnest($1::uuid[], $2::int[]) AS claimed(id, attempts)
     WHERE d.id = claimed.id AND d.attempts = claimed.attempts AND d.state = 'pending'`,
    [claims.map((claim) => claim.id), claims.map((claim) => claim.attempts)],
  );
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  answer: string | null;
  /** The delivery's state after this attempt. */
  state: "succeeded" | "failed" | "pending";
  retryDelayMs: number;
  /** The endpoint it went to: a success clears the endpoint's failure record, a failure starts one. */
  endpointId: string | null;
}

// As often as the claim: prepared.
const RECORD_ATTEMPTS = prepared(
  `WITH results AS (
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[], $8::double precision[], $9::text[], $10::uuid[])
         AS r(id, attempt, attempted_at, status_code, error, duration_ms, state, retry_ms, answer, endpoint_id)
     ), settled AS (
       -- A retry for an endpoint disabled (or deleted) while its attempt was under way is given up,
       -- as the disabling gave up the endpoint's deliveries that were not.
       SELECT r.*, CASE
           WHEN r.state = 'pending' AND r.endpoint_id IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM webhook_endpoints ep WHERE ep.id = r.endpoint_id AND ep.enabled)
           THEN 'failed' ELSE r.state END AS final_state
       FROM results r
     ), endpoint_health AS (
       -- Failing since the first failed attempt after the last success; any success clears it.
       UPDATE webhook_endpoints ep SET failing_since = CASE
           WHEN h.delivered THEN NULL ELSE COALESCE(ep.failing_since, h.first_failure) END
       FROM (
         SELECT endpoint_id, bool_or(state = 'succeeded') AS delivered, min(attempted_at) AS first_failure
         FROM results WHERE endpoint_id IS NOT NULL GROUP BY endpoint_id
       ) AS h
       WHERE ep.id = h.endpoint_id
         AND ep.failing_since IS DISTINCT FROM CASE WHEN h.delivered THEN NULL ELSE COALESCE(ep.failing_since, h.first_failure) END
     ), attempt AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms, answer)
       SELECT id, attempt, attempted_at, status_code, error, duration_ms, answer FROM results
     )
     UPDATE webhook_deliveries d SET
       state = r.final_state,
       locked_until = NULL,
       next_attempt_at = CASE WHEN r.final_state = 'pending' THEN now() + make_interval(secs => r.retry_ms / 1000) ELSE d.next_attempt_at END,
       completed_at = CASE WHEN r.final_state = 'pending' THEN NULL ELSE now() END,
       last_status_code = r.status_code,
       last_error = CASE WHEN r.final_state = r.state THEN r.error ELSE 'endpoint disabled' END
     -- The rows found by the ids as an array (primary-key lookups whatever the statistics say),
     -- then matched to the batch as text, a condition no index can take. Joined on id alone, a plan
     -- made while the table was small hashed the batch against a seq scan of every row; with both
     -- conditions, the index took the array again for each row of the batch.
     FROM settled r WHERE d.id = ANY ($1::uuid[]) AND d.id::text = r.id::text`,
);

/** Attempts finishing together, written in one statement; each releases its delivery's lease. */
export async function recordAttempts(q: Queryable, batch: readonly AttemptRecord[]): Promise<void> {
  await q.query(RECORD_ATTEMPTS, [
    batch.map((entry) => entry.deliveryId),
    batch.map((entry) => entry.attempt),
    batch.map((entry) => entry.attemptedAt),
    batch.map((entry) => entry.statusCode),
    batch.map((entry) => entry.error),
    batch.map((entry) => entry.durationMs),
    batch.map((entry) => entry.state),
    batch.map((entry) => entry.retryDelayMs),
    batch.map((entry) => entry.answer),
    batch.map((entry) => entry.endpointId),
  ]);
}
