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
     ), target AS (
       SELECT NULL::uuid AS endpoint_id, $7::text AS url, $8::text AS destination
       UNION ALL
       SELECT ep.id, ep.url, ep.destination FROM webhook_endpoints ep
       WHERE $10 AND ep.group_id = $2 AND ep.enabled AND $3 = ANY (ep.events)
     ), delivery AS (
       -- Event by event, each event's deliveries together, as the outbox writes them one event a
       -- statement: a join's order would queue one endpoint's share of the whole batch behind the rest.
       INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, endpoint_id)
       SELECT gen_random_uuid(), event.id, event.created_at, target.url, target.destination, 'pending', target.endpoint_id
       FROM event CROSS JOIN target
       ORDER BY event.id, target.endpoint_id NULLS FIRST
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
