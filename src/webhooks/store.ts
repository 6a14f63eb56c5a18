// Every statement on webhook_events, webhook_deliveries and webhook_attempts.
import type { Queryable } from "../db/database.ts";
import { prepared } from "../db/prepared.ts";

/** NOTIFY channel that wakes dispatchers on every instance when a delivery is queued. */
export const OUTBOX_CHANNEL = "webhook_outbox";

export interface EventRow {
  id: string;
  payment_id: string;
  group_id: string;
  event: string;
  status: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  url: string;
  state: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: Date;
  sent_timestamp: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  answer: string | null;
}

export interface NewEvent {
  id: string;
  groupId: string;
  transactionId: string;
  event: string;
  status: string;
  payload: Record<string, unknown>;
}

export interface NewDelivery {
  id: string;
  url: string;
  destination: string;
}

/** An event with nowhere to deliver it, kept for the event feed. */
export async function insertEvent(q: Queryable, event: NewEvent): Promise<void> {
  await q.query(
    "INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload) VALUES ($1, $2, $3, $4, $5, $6)",
    [event.id, event.transactionId, event.groupId, event.event, event.status, JSON.stringify(event.payload)],
  );
}

/** One statement: the event, its delivery, and the NOTIFY that wakes dispatchers on commit. */
export async function insertEventWithDelivery(
  q: Queryable,
  event: NewEvent,
  delivery: NewDelivery,
): Promise<void> {
  await q.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
     ), delivery AS (
       INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
       SELECT $7, id, $8, $9, 'pending' FROM event
     )
     SELECT pg_notify($10, '')`,
    [
      event.id,
      event.transactionId,
      event.groupId,
      event.event,
      event.status,
      JSON.stringify(event.payload),
      delivery.id,
      delivery.url,
      delivery.destination,
      OUTBOX_CHANNEL,
    ],
  );
}

/** `count` copies of one event, each with a pending delivery (bench and load tests fill queues with it). */
export async function insertEventsWithDeliveries(
  q: Queryable,
  event: Omit<NewEvent, "id">,
  delivery: Omit<NewDelivery, "id">,
  count: number,
): Promise<void> {
  await q.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       SELECT gen_random_uuid(), $1, $2, $3, $4, $5 FROM generate_series(1, $6) RETURNING id
     ), delivery AS (
       INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
       SELECT gen_random_uuid(), id, $7, $8, 'pending' FROM event
     )
     SELECT pg_notify($9, '')`,
    [
      event.transactionId,
      event.groupId,
      event.event,
      event.status,
      JSON.stringify(event.payload),
      count,
      delivery.url,
      delivery.destination,
      OUTBOX_CHANNEL,
    ],
  );
}

/**
 * A fresh delivery of an existing event of one group and transaction, to the URL its earlier
 * deliveries used. False when there is no such event or it never had a destination.
 */
export async function insertRedelivery(
  q: Queryable,
  where: { groupId: string; transactionId: string; eventId: string },
  deliveryId: string,
): Promise<boolean> {
  const rows = await q.query(
    `WITH target AS (
       SELECT d.event_id, d.url, d.destination FROM webhook_deliveries d
       JOIN webhook_events e ON e.id = d.event_id
       WHERE e.id = $2 AND e.group_id = $3 AND e.payment_id = $4
       ORDER BY d.created_at DESC LIMIT 1
     ), inserted AS (
       INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
       SELECT $1, event_id, url, destination, 'pending' FROM target RETURNING id
     )
     SELECT pg_notify($5, '') FROM inserted`,
    [deliveryId, where.eventId, where.groupId, where.transactionId, OUTBOX_CHANNEL],
  );
  return rows.length === 1;
}

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
  webhook_secret: string;
  /** The group's earlier secrets, each signing until its expiresAt (ISO 8601). */
  previous_webhook_secrets: { secret: string; expiresAt: string }[];
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
     WHERE d.id = ANY (ARRAY(SELECT id FROM locked)) AND e.id = d.event_id
     RETURNING d.id, d.event_id, d.url, d.destination, d.attempts, d.sent_timestamp, d.created_at, e.event, e.payment_id,
       e.payload, g.webhook_secret, g.previous_webhook_secrets`,
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
}

// As often as the claim: prepared.
const RECORD_ATTEMPTS = prepared(
  `WITH results AS (
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[], $8::double precision[], $9::text[])
         AS r(id, attempt, attempted_at, status_code, error, duration_ms, state, retry_ms, answer)
     ), attempt AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms, answer)
       SELECT id, attempt, attempted_at, status_code, error, duration_ms, answer FROM results
     )
     UPDATE webhook_deliveries d SET
       state = r.state,
       locked_until = NULL,
       next_attempt_at = CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.retry_ms / 1000) ELSE d.next_attempt_at END,
       completed_at = CASE WHEN r.state = 'pending' THEN NULL ELSE now() END,
       last_status_code = r.status_code,
       last_error = r.error
     FROM results r WHERE d.id = r.id`,
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
  ]);
}

export function listEventsOfTransaction(
  q: Queryable,
  groupId: string,
  transactionId: string,
): Promise<EventRow[]> {
  return q.query<EventRow>(
    "SELECT * FROM webhook_events WHERE group_id = $1 AND payment_id = $2 ORDER BY created_at, id",
    [groupId, transactionId],
  );
}

export function listEventsSince(
  q: Queryable,
  groupId: string,
  since: Date,
  limit: number,
): Promise<EventRow[]> {
  return q.query<EventRow>(
    "SELECT * FROM webhook_events WHERE group_id = $1 AND created_at >= $2 ORDER BY created_at, id LIMIT $3",
    [groupId, since, limit],
  );
}

/** A page of a group's events strictly after one of its events, oldest first. */
export function listEventsAfterEvent(
  q: Queryable,
  groupId: string,
  eventId: string,
  limit: number,
): Promise<EventRow[]> {
  // The position is read in SQL, at the column's full precision, as one value: the index on
  // (group_id, created_at, id) then starts at it, instead of walking the group's older events.
  return q.query<EventRow>(
    `SELECT * FROM webhook_events
     WHERE group_id = $1
       AND (created_at, id) > (SELECT created_at, id FROM webhook_events WHERE group_id = $1 AND id = $2)
     ORDER BY created_at, id LIMIT $3`,
    [groupId, eventId, limit],
  );
}

/** When one of a group's events was created; undefined when the group has no such event. */
export async function eventCreatedAt(
  q: Queryable,
  groupId: string,
  eventId: string,
): Promise<Date | undefined> {
  const rows = await q.query<{ created_at: Date }>(
    "SELECT created_at FROM webhook_events WHERE group_id = $1 AND id = $2",
    [groupId, eventId],
  );
  return rows[0]?.created_at;
}

export function listDeliveriesOfEvents(q: Queryable, eventIds: readonly string[]): Promise<DeliveryRow[]> {
  return q.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY created_at",
    [eventIds],
  );
}

export function listAttemptsOfDeliveries(
  q: Queryable,
  deliveryIds: readonly string[],
): Promise<AttemptRow[]> {
  return q.query<AttemptRow>(
    "SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempt",
    [deliveryIds],
  );
}

export interface FailedDeliveryRow {
  id: string;
  event_id: string;
  event: string;
  payment_id: string;
  group_id: string;
  url: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  completed_at: Date;
}

export function listFailedDeliveries(q: Queryable, limit: number): Promise<FailedDeliveryRow[]> {
  return q.query<FailedDeliveryRow>(
    `SELECT d.id, d.event_id, e.event, e.payment_id, e.group_id, d.url, d.attempts, d.last_status_code,
            d.last_error, d.completed_at
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.state = 'failed' ORDER BY d.completed_at DESC LIMIT $1`,
    [limit],
  );
}

/** When the longest-waiting undelivered event was queued; null when nothing waits. */
export async function oldestPendingDelivery(q: Queryable): Promise<Date | null> {
  const [row] = await q.query<{ oldest: Date | null }>(
    "SELECT min(created_at) AS oldest FROM webhook_deliveries WHERE state = 'pending'",
  );
  return row?.oldest ?? null;
}

export async function countPendingDeliveries(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
  );
  return row?.n ?? 0;
}

/**
 * A fresh delivery for every event created in [since, until) (of one group, or all) whose
 * deliveries all failed, to the URL they were sent to; the number queued.
 */
export async function insertRecoveryDeliveries(
  q: Queryable,
  window: { groupId: string | null; since: Date; until: Date },
): Promise<number> {
  const [row] = await q.query<{ queued: number }>(
    `WITH dropped AS (
       SELECT DISTINCT ON (e.id) e.id AS event_id, d.url, d.destination
       FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
       WHERE e.created_at >= $2 AND e.created_at < $3 AND ($1::uuid IS NULL OR e.group_id = $1)
         AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries other WHERE other.event_id = e.id AND other.state <> 'failed'
         )
       ORDER BY e.id, d.created_at DESC
     ), queued AS (
       INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
       SELECT gen_random_uuid(), event_id, url, destination, 'pending' FROM dropped
       RETURNING id
     )
     SELECT count(*)::int AS queued, pg_notify($4, '') FROM queued`,
    [window.groupId, window.since, window.until, OUTBOX_CHANNEL],
  );
  return row?.queued ?? 0;
}

/** One batch of attempt logs from before `before`, oldest first; how many went. */
export async function deleteAttemptsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT id FROM webhook_attempts WHERE attempted_at < $1 ORDER BY attempted_at LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
