// Backlogs of webhook deliveries in one statement, for the bench and the dispatcher's load tests.
import type { Queryable } from "../../src/platform/db/database.ts";
import { type NewDelivery, type NewEvent, OUTBOX_CHANNEL } from "../../src/webhooks/sql/outbox.ts";

/**
 * `count` copies of one event, each with a pending delivery (bench and load tests fill queues with
 * it); with `toEndpoints`, one to every enabled endpoint of the group too, as the outbox fans out.
 */
export async function insertEventsWithDeliveries(
  q: Queryable,
  event: Omit<NewEvent, "id">,
  delivery: Omit<NewDelivery, "id">,
  count: number,
  toEndpoints = false,
): Promise<void> {
  await q.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       SELECT gen_random_uuid(), $1, $2, $3, $4, $5 FROM generate_series(1, $6) RETURNING id, created_at
     ), delivery AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state)
       SELECT gen_random_uuid(), id, created_at, $7, $8, 'pending' FROM event
     ), fanned AS (
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, endpoint_id)
       SELECT gen_random_uuid(), event.id, event.created_at, ep.url, ep.destination, 'pending', ep.id
       FROM event JOIN webhook_endpoints ep ON $10 AND ep.group_id = $2 AND ep.enabled AND $3 = ANY (ep.events)
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
      toEndpoints,
    ],
  );
}
