// The outbox: events and their deliveries, written in the transaction of the change they tell of,
// and the deliveries a resend or a recovery adds. A delivery carries its event's time, which places
// it in its event's week (src/platform/db/partitions.ts): they are kept and dropped together.
import type { Queryable } from "../../platform/db/database.ts";
import { tracing } from "../../platform/telemetry/tracing.ts";

/** NOTIFY channel that wakes dispatchers on every instance when a delivery is queued. */
export const OUTBOX_CHANNEL = "webhook_outbox";

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

/**
 * One statement: the event; its delivery to `url` when there is one (the payment's own URL or the
 * group's); one to each enabled endpoint of the group that takes this event; and the NOTIFY that
 * wakes dispatchers on commit when anything was queued. The number of deliveries queued.
 */
export async function insertEventAndDeliveries(
  q: Queryable,
  event: NewEvent,
  delivery: NewDelivery | null,
): Promise<number> {
  const [row] = await q.query<{ queued: number }>(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at, group_id, event
     ), direct AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent)
       SELECT $7, id, created_at, $8, $9, 'pending', $11 FROM event WHERE $8::text IS NOT NULL
       RETURNING id
     ), fanned AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent, endpoint_id)
       SELECT gen_random_uuid(), event.id, event.created_at, ep.url, ep.destination, 'pending', $11, ep.id
       FROM event JOIN webhook_endpoints ep
         ON ep.group_id = event.group_id AND ep.enabled AND event.event = ANY (ep.events)
       RETURNING id
     ), counted AS (
       SELECT ((SELECT count(*) FROM direct) + (SELECT count(*) FROM fanned))::int AS queued
     )
     SELECT counted.queued FROM counted
     LEFT JOIN LATERAL (SELECT pg_notify($10, '') WHERE counted.queued > 0) AS woke ON true`,
    [
      event.id,
      event.transactionId,
      event.groupId,
      event.event,
      event.status,
      JSON.stringify(event.payload),
      delivery?.id ?? null,
      delivery?.url ?? null,
      delivery?.destination ?? null,
      OUTBOX_CHANNEL,
      tracing().traceparent(),
    ],
  );
  return row?.queued ?? 0;
}

/** An endpoint's `webhook.test`: an event of no payment, and its one delivery, to that endpoint. */
export async function insertTestEvent(
  q: Queryable,
  test: {
    eventId: string;
    deliveryId: string;
    groupId: string;
    endpointId: string;
    payload: Record<string, unknown>;
  },
): Promise<void> {
  await q.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       VALUES ($1, NULL, $2, $3, 'test', $4) RETURNING id, created_at
     ), delivery AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent, endpoint_id)
       SELECT $5, event.id, event.created_at, ep.url, ep.destination, 'pending', $7, ep.id
       FROM event, webhook_endpoints ep WHERE ep.id = $6
     )
     SELECT pg_notify($8, '')`,
    [
      test.eventId,
      test.groupId,
      test.payload.event,
      JSON.stringify(test.payload),
      test.deliveryId,
      test.endpointId,
      tracing().traceparent(),
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
       SELECT d.event_id, d.event_created_at, d.url, d.destination FROM webhook_deliveries d
       JOIN webhook_events e ON e.id = d.event_id AND e.created_at = d.event_created_at
       WHERE e.id = $2 AND e.group_id = $3 AND e.payment_id = $4 AND d.endpoint_id IS NULL
       ORDER BY d.created_at DESC LIMIT 1
     ), inserted AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent)
       SELECT $1, event_id, event_created_at, url, destination, 'pending', $6 FROM target RETURNING id
     )
     SELECT pg_notify($5, '') FROM inserted`,
    [deliveryId, where.eventId, where.groupId, where.transactionId, OUTBOX_CHANNEL, tracing().traceparent()],
  );
  return rows.length === 1;
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
       SELECT DISTINCT ON (e.id) e.id AS event_id, e.created_at AS event_created_at, d.url, d.destination
       FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id AND d.event_created_at = e.created_at
       WHERE e.created_at >= $2 AND e.created_at < $3 AND ($1::uuid IS NULL OR e.group_id = $1)
         AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries other WHERE other.event_id = e.id AND other.state <> 'failed'
         )
       ORDER BY e.id, d.created_at DESC
     ), queued AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent)
       SELECT gen_random_uuid(), event_id, event_created_at, url, destination, 'pending', $5 FROM dropped
       RETURNING id
     )
     SELECT count(*)::int AS queued, pg_notify($4, '') FROM queued`,
    [window.groupId, window.since, window.until, OUTBOX_CHANNEL, tracing().traceparent()],
  );
  return row?.queued ?? 0;
}

/**
 * A delivery to one endpoint of every payment event of [since, until) it takes and has no
 * successful or pending delivery of; the number queued, or undefined for no such endpoint.
 */
export async function insertEndpointRecoveryDeliveries(
  q: Queryable,
  window: { groupId: string; endpointId: string; since: Date; until: Date },
): Promise<number | undefined> {
  const [row] = await q.query<{ found: boolean; queued: number }>(
    `WITH endpoint AS (
       SELECT id, url, destination, events FROM webhook_endpoints WHERE id = $2 AND group_id = $1
     ), missed AS (
       SELECT e.id, e.created_at FROM webhook_events e, endpoint
       WHERE e.group_id = $1 AND e.created_at >= $3 AND e.created_at < $4 AND e.payment_id IS NOT NULL
         AND e.event = ANY (endpoint.events)
         AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries d
           WHERE d.event_id = e.id AND d.event_created_at = e.created_at AND d.endpoint_id = endpoint.id
             AND d.state <> 'failed'
         )
     ), queued AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, traceparent, endpoint_id)
       SELECT gen_random_uuid(), missed.id, missed.created_at, endpoint.url, endpoint.destination, 'pending', $6, endpoint.id
       FROM missed, endpoint
       RETURNING id
     ), counted AS (
       SELECT EXISTS (SELECT 1 FROM endpoint) AS found, (SELECT count(*) FROM queued)::int AS queued
     )
     SELECT counted.found, counted.queued FROM counted
     LEFT JOIN LATERAL (SELECT pg_notify($5, '') WHERE counted.queued > 0) AS woke ON true`,
    [window.groupId, window.endpointId, window.since, window.until, OUTBOX_CHANNEL, tracing().traceparent()],
  );
  return row?.found ? row.queued : undefined;
}

/**
 * Takes `fields` out of every stored body of these payments' events, keeping the others in their
 * order: a resend, a retry not yet sent, the feed and the stream all read these bodies.
 */
export async function eraseEventFields(
  q: Queryable,
  paymentIds: readonly string[],
  fields: readonly string[],
): Promise<void> {
  await q.query(
    `UPDATE webhook_events e SET payload = (
       SELECT COALESCE(json_object_agg(f.key, f.value ORDER BY f.n), '{}'::json)
       FROM json_each(e.payload) WITH ORDINALITY AS f(key, value, n)
       WHERE f.key <> ALL ($2::text[]))
     WHERE e.payment_id = ANY ($1::uuid[])`,
    [paymentIds, fields],
  );
}
